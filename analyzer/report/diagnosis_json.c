/* SPDX-License-Identifier: MIT */
/*
 * diagnosis_json.c - the diagnosis in the JSON report:
 *   "steps": {"count", "mean_ns", "p50_ns", "p99_ns", "source", "name",
 *             "warmup_steps", "warmup_mean_ns", "min_ns", "max_ns",
 *             "stddev_ns", "outliers": [{"step", "ns"}]}
 *   "idle": [{"cause", "ns", "share"}]   GPU idle time of the steady
 *             state by cause, most first (empty without GPU records)
 *   "verdict": [{"class", "score", "evidence", "advice", "change",
 *             "est_gain_low", "est_gain_high"}]   top class first
 *   "diagnosis": {"gpu_known", "span_ns", "busy_ns", "busy_share",
 *             "sync_kinds", "sync_sites", "warmup", "host", "kernels"...}
 */
#include "analyzer/diagnosis/diagnosis_internal.h"

static void put_uint(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_uint(j, v);
}

static void put_num(struct json *j, const char *key, double v)
{
	json_key(j, key);
	json_double(j, v);
}

static void put_str(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_string(j, s);
}

static void steps_json(struct json *j, const struct step_stats *s)
{
	static const char *const src[] = { "none", "nvtx", "launch_pattern" };

	json_key(j, "steps");
	json_begin_object(j);
	put_uint(j, "count", s->nt ? s->nt - 1 : 0);
	put_uint(j, "mean_ns", s->mean);
	put_uint(j, "step_ns", s->step);
	put_str(j, "step_source", s->gpu_paced ? "gpu_pace" : "host");
	put_uint(j, "gpu_pace_ns", s->gpu_pace);
	put_uint(j, "gpu_paced_steps", s->gpu_steps);
	json_key(j, "calls_alike");
	json_bool(j, s->alike);
	put_uint(j, "p50_ns", s->p50);
	put_uint(j, "p99_ns", s->p99);
	put_str(j, "source", src[s->source]);
	put_str(j, "name", s->name ? s->name : "");
	put_uint(j, "warmup_steps", s->warmup);
	put_uint(j, "warmup_mean_ns", s->warm_mean);
	put_uint(j, "min_ns", s->min);
	put_uint(j, "max_ns", s->max);
	put_uint(j, "stddev_ns", s->stddev);
	put_uint(j, "period", s->period);
	json_key(j, "outliers");
	json_begin_array(j);
	for (size_t i = 0; i < s->outliers && i < 5; i++) {
		size_t k = s->outlier_idx[i];

		json_begin_object(j);
		put_uint(j, "step", k + 1);
		put_uint(j, "ns", s->t[k + 1] - s->t[k]);
		json_end_object(j);
	}
	json_end_array(j);
	json_end_object(j);
}

static void causes_json(struct json *j, const char *key, const struct breakdown *b)
{
	int done[IC_CAUSES] = { 0 };

	json_key(j, key);
	json_begin_array(j);
	for (int n = 0; n < IC_CAUSES; n++) {
		int best = -1;

		for (int c = 0; c < IC_CAUSES; c++)
			if (!done[c] && b->cause[c] &&
			    (best < 0 || b->cause[c] > b->cause[best]))
				best = c;
		if (best < 0)
			break;
		done[best] = 1;
		json_begin_object(j);
		put_str(j, "cause", idle_cause_name(best));
		put_uint(j, "ns", b->cause[best]);
		put_num(j, "share", b->span_ns ? (double)b->cause[best] / b->span_ns : 0);
		json_end_object(j);
	}
	json_end_array(j);
}

static void texts(struct json *j, const char *key, char *const *v, size_t n)
{
	json_key(j, key);
	json_begin_array(j);
	for (size_t i = 0; i < n; i++)
		json_string(j, v[i]);
	json_end_array(j);
}

static void verdict_json(struct json *j, const struct diagnosis *d)
{
	json_key(j, "verdict");
	json_begin_array(j);
	for (size_t i = 0; d && i < d->nv; i++) {
		const struct verdict *v = &d->v[i];

		json_begin_object(j);
		put_str(j, "class", verdict_class_name(v->cls));
		put_num(j, "score", v->score);
		texts(j, "evidence", v->evidence, v->nev);
		texts(j, "advice", v->advice, v->nadv);
		put_str(j, "change", v->change);
		put_num(j, "est_gain_low", v->gain_lo);
		put_num(j, "est_gain_high", v->gain_hi);
		json_key(j, "replayed");
		json_bool(j, v->replayed);
		if (v->replayed)
			put_num(j, "est_gain", v->gain);
		json_key(j, "per_sample");     /* the gains: time per sample */
		json_bool(j, v->per_sample);
		if (v->per_sample && v->batch >= 2)
			put_num(j, "batch_factor", v->batch);
		json_end_object(j);
	}
	json_end_array(j);
}

static void breakdown_json(struct json *j, const struct breakdown *b)
{
	static const char *const kinds[SK_KINDS] = { "other", "readback", "upload" };

	put_uint(j, "span_ns", b->span_ns);
	put_uint(j, "busy_ns", b->busy_ns);
	put_num(j, "busy_share", b->span_ns ? (double)b->busy_ns / b->span_ns : 0);
	put_uint(j, "idle_intervals", b->intervals);
	json_key(j, "sync_kinds");
	json_begin_object(j);
	for (int k = 0; k < SK_KINDS; k++)
		put_uint(j, kinds[k], b->sync_kind[k]);
	json_end_object(j);
}

static void host_json(struct json *j, const struct host_breakdown *h)
{
	static const char *const st[HC_KINDS + 1] = {
		"waiting", "launching", "pinning", "nccl", "staging", "outside_cuda",
	};
	static const char *const out[4] = {
		"outside_cpu", "outside_dataloader", "outside_io", "outside_other",
	};

	json_key(j, "host");
	json_begin_object(j);
	put_uint(j, "span_ns", h->span_ns);
	for (int i = 0; i <= HC_KINDS; i++)
		put_uint(j, st[i], h->state[i]);
	for (int i = 0; i < 4; i++)
		put_uint(j, out[i], h->outside[i]);
	put_uint(j, "waiting_upload", h->wait_upload);
	put_uint(j, "outside_after_wait", h->drained);
	json_end_object(j);
}

static void sites_json(struct json *j, const struct model *m,
		       const struct diagnosis *d)
{
	const struct sync_site *s;
	size_t pos = 0;

	json_key(j, "sync_sites");
	json_begin_array(j);
	while ((s = hmap_next(&d->sync_sites, &pos))) {
		const char *site = diagnosis_site(m, s->stack);

		json_begin_object(j);
		put_str(j, "site", site ? site : "");
		put_uint(j, "stack", s->stack);
		put_uint(j, "ns", s->ns);
		json_end_object(j);
	}
	json_end_array(j);
}

static void kernels_json(struct json *j, const struct diagnosis *d)
{
	json_key(j, "kernels");
	json_begin_object(j);
	put_uint(j, "count", d->region_kernels);
	put_uint(j, "gpu_ns", d->region_kernel_ns);
	put_uint(j, "small", d->region_small);
	put_uint(j, "launches", d->region_launches);
	put_uint(j, "launch_ns", d->region_launch_ns);
	put_num(j, "lowfill_share", verdict_lowfill(d));
	put_num(j, "lowfill_launch_share", verdict_lowfill_launches(d));
	put_num(j, "optimizer_share", verdict_opt_share(d));
	put_num(j, "batch_factor", verdict_batch(d));
	put_uint(j, "sm_count", (uint64_t)(d->env.sm_count > 0 ? d->env.sm_count : 0));
	put_uint(j, "htod_bytes", d->region_htod_bytes);
	json_end_object(j);
}

void diagnosis_report_json(struct json *j, const struct model *m)
{
	const struct diagnosis *d = m->diag;
	static const struct step_stats none;
	int gpu = d && d->have_gpu && d->steady.span_ns;

	steps_json(j, d ? &d->steps : &none);
	causes_json(j, "idle", gpu ? &d->steady : &(struct breakdown){ 0 });
	verdict_json(j, d);
	if (d)
		replay_report_json(j, d);
	json_key(j, "diagnosis");
	json_begin_object(j);
	json_key(j, "gpu_known");
	json_bool(j, gpu);
	put_str(j, "verdict_order", d && verdict_by_replay(d) ? "replayed_gain" : "score");
	if (d) {
		breakdown_json(j, &d->steady);
		json_key(j, "warmup");
		json_begin_object(j);
		breakdown_json(j, &d->warm);
		causes_json(j, "idle", &d->warm);
		json_end_object(j);
		host_json(j, &d->host);
		sites_json(j, m, d);
		kernels_json(j, d);
		put_uint(j, "timed_steps", d->timed_steps);
		put_uint(j, "timed_step_ns", d->timed_step_ns);
		json_key(j, "gpu_outside_steps");
		json_bool(j, d->region_all);
		put_uint(j, "host_spans_lost", d->spans_lost);
		put_uint(j, "gpu_spans_lost", d->gpu_lost);
	}
	json_end_object(j);
}
