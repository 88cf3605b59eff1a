/* SPDX-License-Identifier: MIT */
/*
 * framework_words.c - the advice of the findings and the diagnosis in the
 * words of the program's framework (framework.h): one table, a topic per
 * row, a framework per column; an empty cell takes the unknown column's
 * words (nothing but CUDA's and the language's own).  A cell of the data
 * topics holds one %d, the workers to try.  PyTorch without a DataLoader
 * seen has its own words where PyTorch's name one.
 */
#include "analyzer/passes/framework.h"

static const char *const words[FW_TOPICS][FW_KINDS] = {
	[FW_DATA_CHANGE] = {
		[FW_UNKNOWN] = "prepare the next batch off the main thread while the "
			"GPU runs this one (%d worker threads or processes)",
		[FW_PYTORCH] = "prepare batches in worker processes: a "
			"torch.utils.data.DataLoader with num_workers=%d",
		[FW_JAX] = "prepare batches ahead, off the main thread: grain "
			"(worker_count=%d) or tf.data with prefetch",
		[FW_TENSORFLOW] = "tf.data: a parallel map (num_parallel_calls=%d or "
			"AUTOTUNE) and prefetch",
		[FW_CUDA] = "prepare the next batch in %d worker threads while the "
			"GPU runs this one",
	},
	[FW_DATA_ADVICE] = {
		[FW_UNKNOWN] = "the main thread prepares the data between steps: "
			"move it to %d worker threads or processes that keep the next "
			"batches ready (a queue), and upload each from pinned memory "
			"asynchronously",
		[FW_PYTORCH] = "the training loop prepares its data between steps: "
			"move it into a torch.utils.data.DataLoader with worker "
			"processes (num_workers=%d, persistent_workers=True, "
			"pin_memory=True), or a background thread that prepares the "
			"next batch while the GPU runs this one",
		[FW_JAX] = "the training loop prepares its data between steps: build "
			"the input pipeline with grain (worker_count=%d) or tf.data "
			"(map with num_parallel_calls=AUTOTUNE, then prefetch), and put "
			"the next batch on the GPU ahead of the step "
			"(flax.jax_utils.prefetch_to_device)",
		[FW_TENSORFLOW] = "the training loop prepares its data between steps: "
			"dataset.map(f, num_parallel_calls=tf.data.AUTOTUNE) over the "
			"%d cores, .prefetch(tf.data.AUTOTUNE), and cache() what does "
			"not change",
		[FW_CUPY] = "the main thread prepares the data between steps: move "
			"it to %d worker threads or processes that keep the next "
			"batches ready, and copy each from pinned memory "
			"(cupyx.empty_pinned) asynchronously on a stream",
		[FW_CUDA] = "the main thread prepares the data between steps: move "
			"it to %d worker threads that keep the next batches ready "
			"(double buffering), and upload each with cudaMemcpyAsync from "
			"pinned memory on a second stream",
	},
	[FW_CPU_ADVICE] = {
		[FW_UNKNOWN] = "move the preprocessing to the GPU (NVIDIA DALI, NPP, "
			"a kernel of your own), or spread it over worker processes; "
			"measure each transform's cost first",
		[FW_PYTORCH] = "move simple augmentation (normalize, flip, crop) to "
			"the GPU (torchvision.transforms.v2 on CUDA tensors, kornia, "
			"DALI); keep heavy augmentation (RandAugment, MixUp) in the "
			"workers; measure each transform's cost first",
		[FW_JAX] = "do the simple preprocessing on the GPU inside the jitted "
			"step (jax.numpy, jax.image), keep the heavy part in grain or "
			"tf.data workers; measure each transform's cost first",
		[FW_TENSORFLOW] = "run the preprocessing in tf.data's parallel map, "
			"or as preprocessing layers inside the model on the GPU; "
			"measure each transform's cost first",
		[FW_CUPY] = "do the preprocessing on the GPU with CuPy "
			"(cupyx.scipy.ndimage) or NVIDIA DALI, or spread it over "
			"worker processes; measure each transform's cost first",
	},
	[FW_PIN_CHANGE] = {
		[FW_UNKNOWN] = "pinned host memory (cudaHostAlloc) and cudaMemcpyAsync",
		[FW_PYTORCH] = "pinned memory and .to(device, non_blocking=True)",
		[FW_JAX] = "put the next batch on the GPU ahead of the step "
			"(jax.device_put while this one runs)",
		[FW_TENSORFLOW] = "prefetch the batches to the GPU "
			"(tf.data.experimental.prefetch_to_device)",
		[FW_CUPY] = "pinned host buffers (cupyx.empty_pinned) and copies "
			"on a stream",
	},
	[FW_PIN_ADVICE] = {
		[FW_UNKNOWN] = "pin the host buffers (cudaHostAlloc, or "
			"cudaHostRegister on memory you have) and copy with "
			"cudaMemcpyAsync on a stream, so the copies overlap with kernels",
		[FW_PYTORCH] = "pin the batches and copy asynchronously: "
			"DataLoader(pin_memory=True) or tensor.pin_memory(), then "
			".to(device, non_blocking=True)",
		[FW_JAX] = "copy the next batch while the step runs: "
			"jax.device_put it ahead (flax.jax_utils.prefetch_to_device "
			"keeps two batches on the device), and keep arrays on the "
			"device between steps",
		[FW_TENSORFLOW] = "let tf.data copy ahead: "
			"dataset.apply(tf.data.experimental.prefetch_to_device("
			"'/gpu:0')), and keep tensors on the GPU between steps",
		[FW_CUPY] = "allocate the host side pinned (cupyx.empty_pinned, "
			"cupy.cuda.alloc_pinned_memory) and copy with "
			"ndarray.set(..., stream=s) on a non-default stream, so the "
			"copies overlap with kernels",
	},
	[FW_ASYNC_CHANGE] = {
		[FW_UNKNOWN] = "cudaMemcpyAsync without waiting at once",
		[FW_PYTORCH] = ".to(device, non_blocking=True) for pinned copies",
		[FW_JAX] = "put the next batch on the GPU ahead of the step "
			"(jax.device_put while this one runs)",
		[FW_TENSORFLOW] = "prefetch the batches to the GPU "
			"(tf.data.experimental.prefetch_to_device)",
	},
	[FW_ASYNC_ADVICE] = {
		[FW_UNKNOWN] = "pinned copies are waited for at once: copy with "
			"cudaMemcpyAsync on a second stream and order the kernel that "
			"reads the data after it with an event (cudaStreamWaitEvent), "
			"not a host wait; copy the next batch while this step runs",
		[FW_PYTORCH] = "pinned copies are waited for at once: "
			".to(device, non_blocking=True) lets them overlap with compute "
			"(prefetch the next batch)",
		[FW_JAX] = "uploads are waited for at once: jax.device_put the next "
			"batch ahead, while this step runs, and do not block on it "
			"(no jax.block_until_ready on the input)",
		[FW_TENSORFLOW] = "uploads are waited for at once: "
			"tf.data.experimental.prefetch_to_device copies the next batch "
			"while this step runs",
		[FW_CUPY] = "pinned copies are waited for at once: copy on a "
			"non-default stream (ndarray.set(..., stream=s)) and wait on "
			"an event before the kernel that reads it, not on the stream",
	},
	[FW_READBACK] = {
		[FW_UNKNOWN] = "reading results back",
		[FW_PYTORCH] = ".item(), .cpu()",
		[FW_JAX] = "float(), np.asarray(), jax.device_get",
		[FW_TENSORFLOW] = ".numpy(), float()",
		[FW_CUPY] = ".get(), cupy.asnumpy(), float()",
		[FW_CUDA] = "cudaMemcpy back, cudaDeviceSynchronize",
	},
	[FW_SYNC_ADVICE] = {
		[FW_UNKNOWN] = "remove the per-step sync (reading a value back, "
			"waiting for the device): keep running sums on the GPU and "
			"read them every N steps",
		[FW_PYTORCH] = "remove the per-step sync (loss.item(), .cpu(), "
			"printing a tensor): keep running sums on the GPU and read "
			"them every N steps",
		[FW_JAX] = "float(loss), np.asarray or printing a value waits for "
			"the step: accumulate metrics on the device (inside the jitted "
			"step) and read them every N steps; JAX's dispatch then runs "
			"ahead and the host's work overlaps the GPU's "
			"(jax.block_until_ready only where a timing needs it)",
		[FW_TENSORFLOW] = "reading a tensor with .numpy() or printing it "
			"waits for the step: keep metrics in tf.Variable accumulators "
			"inside the tf.function and read them every N steps",
		[FW_CUPY] = "a .get(), cupy.asnumpy() or float() of a device value "
			"waits for the queue: keep running sums in CuPy arrays and "
			"read them every N steps",
		[FW_CUDA] = "wait less often: record an event (cudaEventRecord) "
			"and wait on it only where the host needs the result, copy "
			"results back with cudaMemcpyAsync into pinned memory every N "
			"steps, and order work between streams with "
			"cudaStreamWaitEvent, not the host",
	},
	[FW_NCCL_ADVICE] = {
		[FW_UNKNOWN] = "overlap the collectives with compute (on their own "
			"stream), group small ones (ncclGroupStart/End), all-reduce "
			"less often; check the topology (nvidia-smi topo -m, "
			"NCCL_P2P_DISABLE, NCCL_DEBUG=INFO)",
		[FW_PYTORCH] = "overlap communication with compute (DDP "
			"bucket_cap_mb), all-reduce less often (gradient accumulation "
			"with no_sync()), use DistributedSampler with "
			"sampler.set_epoch(epoch); check the topology (nvidia-smi topo "
			"-m, NCCL_P2P_DISABLE, NCCL_DEBUG=INFO)",
		[FW_JAX] = "let XLA overlap the collectives with compute "
			"(--xla_gpu_enable_latency_hiding_scheduler=true), all-reduce "
			"less often (gradient accumulation); check the topology "
			"(nvidia-smi topo -m, NCCL_DEBUG=INFO)",
	},
	[FW_GRAPH_CHANGE] = {
		[FW_UNKNOWN] = "CUDA graphs and fused kernels",
		[FW_PYTORCH] = "CUDA graphs or torch.compile(mode=\"reduce-overhead\")",
		[FW_JAX] = "jit larger pieces (the whole step, lax.scan over steps) "
			"so XLA fuses them",
		[FW_TENSORFLOW] = "tf.function(jit_compile=True) over the whole step",
		[FW_CUPY] = "a CUDA graph (cupy.cuda.Graph) and fused kernels "
			"(cupy.fuse)",
		[FW_CUDA] = "a CUDA graph for the step (stream capture) and fused "
			"kernels",
	},
	[FW_GRAPH_ADVICE] = {
		[FW_UNKNOWN] = "replay the step as a CUDA graph (stream capture, "
			"then one graph launch per step) and fuse small kernels",
		[FW_PYTORCH] = "replay the step as a CUDA graph (torch.cuda.graph, "
			"or torch.compile(mode=\"reduce-overhead\")) and fuse small ops "
			"with torch.compile; judge after ~100 steps, compilation takes "
			"a while",
		[FW_JAX] = "jit the whole training step (and lax.scan over a few "
			"steps) so that XLA fuses the small ops and launches few "
			"kernels; keep Python control flow out of the step",
		[FW_TENSORFLOW] = "wrap the step in tf.function(jit_compile=True) so "
			"that XLA fuses the small ops; keep Python control flow out "
			"of it",
		[FW_CUPY] = "fuse elementwise ops (cupy.fuse, ElementwiseKernel, "
			"RawKernel) and capture the step as a CUDA graph "
			"(stream.begin_capture(), then graph.launch())",
		[FW_CUDA] = "capture the step as a CUDA graph "
			"(cudaStreamBeginCapture, cudaGraphInstantiate, one "
			"cudaGraphLaunch per step) and fuse small kernels",
	},
	[FW_BATCH_OVERHEAD] = {
		[FW_UNKNOWN] = " and cut launch overhead with CUDA graphs",
		[FW_PYTORCH] = " and cut launch overhead with CUDA graphs "
			"(torch.compile(mode=\"reduce-overhead\"))",
		[FW_JAX] = " (lax.scan over micro-batches in one jitted step)",
		[FW_TENSORFLOW] = " inside one tf.function",
	},
	[FW_FUSE] = {
		[FW_UNKNOWN] = "fuse kernels, use mixed precision and Tensor Cores",
		[FW_PYTORCH] = "fuse with torch.compile, use mixed precision "
			"(torch.autocast) and Tensor Cores",
		[FW_JAX] = "XLA fuses already: use bfloat16 and Tensor Cores "
			"(jax.default_matmul_precision)",
	},
	[FW_PAGEABLE_FINDING] = {
		[FW_UNKNOWN] = "pin the host buffers (cudaHostAlloc, "
			"cudaHostRegister) so the GPU can read them directly",
		[FW_PYTORCH] = "pin the host buffers (DataLoader(pin_memory=True), "
			"tensor.pin_memory()) so the GPU can read them directly",
		[FW_JAX] = "the uploads come from pageable numpy arrays: put the "
			"next batch on the GPU ahead of the step (jax.device_put, "
			"flax.jax_utils.prefetch_to_device)",
		[FW_CUPY] = "pin the host buffers (cupyx.empty_pinned) so the GPU "
			"can read them directly",
	},
	[FW_SYNC_PINNED_FINDING] = {
		[FW_UNKNOWN] = "copy with cudaMemcpyAsync and wait on an event "
			"only where the data is needed, to overlap them with compute",
		[FW_PYTORCH] = "copy with non_blocking=True to overlap them with "
			"compute",
	},
	[FW_ALLOC_FINDING] = {
		[FW_UNKNOWN] = "allocate pinned buffers once and reuse them",
		[FW_PYTORCH] = "allocate pinned buffers once and reuse them "
			"(PyTorch's caching host allocator does; check for tensors "
			"pinned per step)",
	},
};

/* PyTorch with no DataLoader seen: no DataLoader in the words. */
static const char *const torch_alone[FW_TOPICS] = {
	[FW_PIN_ADVICE] = "pin the host tensors (tensor.pin_memory(), or made "
		"with pin_memory=True) and copy them with .to(device, "
		"non_blocking=True)",
	[FW_PAGEABLE_FINDING] = "pin the host tensors (tensor.pin_memory(), "
		"or made with pin_memory=True) so the GPU can read them directly",
};

const char *framework_words(const struct framework *f, enum fw_topic t)
{
	enum fw_kind k = f->kind < FW_KINDS ? f->kind : FW_UNKNOWN;

	if (t >= FW_TOPICS)
		return "";
	if (k == FW_PYTORCH && !f->dataloader && torch_alone[t])
		return torch_alone[t];
	return words[t][k] ? words[t][k] : words[t][FW_UNKNOWN];
}
