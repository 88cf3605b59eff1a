make -s -j16 all >/dev/null 2>&1 || { echo build failed; exit 1; }
L=$PWD/build/libgputrace.so; cd examples/diagnose
run() { name=$1; shift; env PYTHONFAULTHANDLER=1 GPUTRACE_OUTPUT=$OUT/$name-%p.bin LD_PRELOAD=$L "$@" >$OUT/$name.out 2>$OUT/$name.err; echo "$name rc=$? truth=$(grep -c truth $OUT/$name.out) $(grep -v '^  File\|^Current\|^Thread\|^$' $OUT/$name.err | tail -c 400 | tr '\n' ' ')"; }
G="python3 tiny_batch.py --batch 16 --accum 32 --steps 30"
run g-default $G
run g-nostart env GPUTRACE_GPU_START_CALLS=0 $G
run g-off env GPUTRACE_GPU=off $G
run g-nocupti env GPUTRACE_CUPTI=0 $G
run g-nosample env GPUTRACE_GPU=off GPUTRACE_SAMPLE_MS=0 GPUTRACE_STACK_DEPTH=0 $G
run g-untraced env LD_PRELOAD= $G
grep -h -A12 "Fatal Python\|Current thread" $OUT/g-default.err | head -30
rm -f $OUT/*.bin
