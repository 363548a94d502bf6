/*
 * Stress test of the opguard C ABI: every entry point, from several threads
 * at once, with valid and invalid input, for a number of rounds.
 *
 *   opguard_stress FIXTURES_DIR SCRATCH_DIR [THREADS [ROUNDS]]
 *
 * Checks, for every call:
 *   - a JSON entry point returns a non-NULL envelope that is never
 *     "capi.internal_panic" (no panic crossed the boundary, none was caught
 *     either);
 *   - a call whose answer does not depend on the caller returns exactly the
 *     bytes a lone caller got before the threads started;
 *   - invalid input is an error envelope with the expected code;
 *   - the writing entry points (export, apply) succeed on a fresh path of
 *     their own and refuse an existing one.
 * Built with -fsanitize=address by bindings/test.sh, so LeakSanitizer fails
 * the run when anything the library returned or allocated is not released.
 * Exits non-zero on any failure.
 */
#include "opguard.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef char *(*entry_fn)(const char *);

typedef struct {
    const char *name;
    entry_fn fn;
    char *request;        /* owned; NULL means "call with NULL" */
    const char *code;     /* expected error code, or NULL when ok:true */
    char *expected;       /* the lone caller's envelope (owned by the library) */
} call_case;

static const char *fixtures_dir;
static const char *scratch_dir;
static call_case cases[128];
static size_t case_count = 0;
static int rounds = 20;

static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
static int failures = 0;

static void fail(int thread, const char *what, const char *detail) {
    pthread_mutex_lock(&report_lock);
    failures++;
    if (failures <= 20) printf("FAIL [thread %d] %s: %s\n", thread, what, detail);
    pthread_mutex_unlock(&report_lock);
}

static char *dup_str(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (!d) { fprintf(stderr, "out of memory\n"); exit(2); }
    memcpy(d, s, n);
    return d;
}

/* `prefix` + `text` as a JSON string + `suffix`. */
static char *quoted_request(const char *prefix, const char *text, const char *suffix) {
    size_t n = strlen(prefix) + 2 * strlen(text) + strlen(suffix) + 3;
    char *out = malloc(n), *p;
    const char *t;
    if (!out) { fprintf(stderr, "out of memory\n"); exit(2); }
    p = out + sprintf(out, "%s\"", prefix);
    for (t = text; *t; t++) {
        if (*t == '"' || *t == '\\') *p++ = '\\';
        *p++ = *t;
    }
    sprintf(p, "\"%s", suffix);
    return out;
}

static char *fixture_request(const char *prefix, const char *relative, const char *suffix) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", fixtures_dir, relative);
    return quoted_request(prefix, path, suffix);
}

static void add(const char *name, entry_fn fn, char *request, const char *code) {
    call_case *c = &cases[case_count++];
    c->name = name;
    c->fn = fn;
    c->request = request;
    c->code = code;
    c->expected = NULL;
}

/* An envelope's verdict: 0 when it is what `code` asks for, else a reason. */
static const char *judge(const char *envelope, const char *code) {
    char needle[256];
    if (!envelope) return "NULL envelope";
    if (strstr(envelope, "capi.internal_panic")) return "a panic reached the boundary";
    /* Keys are sorted: {"ok":true,"value":...} or {"error":{...},"ok":false}. */
    if (!code) return strncmp(envelope, "{\"ok\":true,\"value\":", 19) == 0 ? NULL : envelope;
    if (strncmp(envelope, "{\"error\":{", 10) != 0 ||
        strcmp(envelope + strlen(envelope) - 12, ",\"ok\":false}") != 0)
        return envelope;
    snprintf(needle, sizeof needle, "\"code\":\"%s\"", code);
    return strstr(envelope, needle) ? NULL : envelope;
}

#define TRACE                                                                                 \
    "{\"traceEvents\":["                                                                      \
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":2," \
    "\"ts\":100,\"dur\":5,\"args\":{\"correlation\":7,\"External id\":3}},"                    \
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void gemm_kernel<float>(float*)\",\"pid\":0,"  \
    "\"tid\":7,\"ts\":110,\"dur\":20,\"args\":{\"correlation\":7,\"device\":0,\"stream\":7}}"   \
    "]}"

#define CAPTURE(label, axis, hint)                                                        \
    "{\"format\":\"opguard.census/capture-v1\",\"label\":\"" label "\",\"step_axis\":\"" axis \
    "\",\"step_hint\":" hint ",\"ops\":[{\"name\":\"aten.mm.default\",\"shapes\":[[\"" axis  \
    "\",64],[64,192],[\"" axis "\",192]]}],\"guards\":[],\"replacements\":{},"               \
    "\"host_resolutions\":[]}"

#define ENTRY(f) #f, f

static const char BAD_UTF8[] = "{\"symbol\":\"\xff\xfe\"}";

static void build_cases(void) {
    /* Every JSON entry point, refused the same four ways. */
    static const struct {
        const char *name;
        entry_fn fn;
    } all[] = {
        {ENTRY(opguard_kernel_canonicalize)},   {ENTRY(opguard_kernel_canonicalize_batch)},
        {ENTRY(opguard_kernel_short_name)},     {ENTRY(opguard_kernel_match_json)},
        {ENTRY(opguard_kernel_match_batch)},    {ENTRY(opguard_trace_info)},
        {ENTRY(opguard_trace_launch_regions)},  {ENTRY(opguard_census)},
        {ENTRY(opguard_census_compare_widths)}, {ENTRY(opguard_profile_top_n)},
        {ENTRY(opguard_seam_verdict)},          {ENTRY(opguard_export_build)},
        {ENTRY(opguard_alignment_map_apply)},   {ENTRY(opguard_scaling_correlate)},
        {ENTRY(opguard_job_summary)},           {ENTRY(opguard_job_merge)},
        {ENTRY(opguard_compare)},
    };
    size_t i;
    for (i = 0; i < sizeof all / sizeof all[0]; i++) {
        add(all[i].name, all[i].fn, NULL, "capi.null_argument");
        add(all[i].name, all[i].fn, dup_str(BAD_UTF8), "capi.invalid_utf8");
        add(all[i].name, all[i].fn, dup_str("{,}"), "document.json_syntax");
        add(all[i].name, all[i].fn, dup_str("[\"not\", \"an\", \"object\"]"),
            "document.wrong_type");
    }

    /* Valid requests whose answers do not depend on the caller. */
    add(ENTRY(opguard_kernel_canonicalize),
        dup_str("{\"symbol\":\"void (anonymous namespace)::clamp_position_kernel<long>(long*)\"}"),
        NULL);
    add(ENTRY(opguard_kernel_canonicalize_batch),
        dup_str("{\"symbols\":[\"void gemm_kernel<float>(float*)\",\"main_kernel[prefill]\","
                "\"Memcpy HtoD (Pageable -> Device)\",\"_Z3fooi\"]}"),
        NULL);
    add(ENTRY(opguard_kernel_short_name), dup_str("{\"symbol\":\"void at::native::f<int>(int)\"}"),
        NULL);
    add(ENTRY(opguard_kernel_match_json),
        dup_str("{\"want\":\"gemm_kernel\",\"got\":\"void gemm_kernel<float>(float*)\"}"), NULL);
    add(ENTRY(opguard_kernel_match_batch),
        dup_str("{\"pairs\":[[\"gemm_kernel\",\"void gemm_kernel<float>(float*)\"],"
                "[\"void\",\"void\"]]}"),
        NULL);
    add(ENTRY(opguard_trace_info), quoted_request("{\"text\":", TRACE, "}"), NULL);
    add(ENTRY(opguard_trace_info),
        fixture_request("{\"path\":", "select/attention.pid-4242.json.gz", "}"), NULL);
    add(ENTRY(opguard_trace_launch_regions),
        quoted_request("{\"artifacts\":[{\"text\":", TRACE, ",\"stage\":\"decode\"}]}"), NULL);
    add(ENTRY(opguard_census), dup_str("{\"capture\":" CAPTURE("w2", "s0", "2") "}"), NULL);
    add(ENTRY(opguard_census_compare_widths),
        dup_str("{\"first\":" CAPTURE("w2", "s0", "2") ",\"second\":" CAPTURE("w8", "s9", "8") "}"),
        NULL);
    add(ENTRY(opguard_profile_top_n),
        fixture_request("{\"top\":3,\"path\":", "select/attention.pid-4242.json.gz", "}"), NULL);
    add(ENTRY(opguard_seam_verdict),
        fixture_request("{\"request_path\":", "select/0720_inner_launcher.request.json", "}"),
        NULL);
    add(ENTRY(opguard_scaling_correlate),
        fixture_request("{\"trials_path\":", "scaling/seed003/trials.json", "}"), NULL);
    add(ENTRY(opguard_job_summary),
        fixture_request("{\"top\":3,\"path\":", "select/attention.pid-4242.json.gz", "}"), NULL);
    add(ENTRY(opguard_job_merge), dup_str("{\"summaries\":[]}"), NULL);
    add(ENTRY(opguard_compare),
        fixture_request("{\"candidate\":[\"/nonexistent/opguard/t.json\"],\"baseline\":[",
                        "select/attention.pid-4242.json.gz", "]}"),
        "compare.trace_unreadable");

    /* Invalid requests with the library's own codes. */
    add(ENTRY(opguard_trace_info),
        quoted_request("{\"text\":", "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":NaN}]}", "}"),
        "trace.non_finite_number");
    add(ENTRY(opguard_trace_info), dup_str("{\"path\":\"/nonexistent/opguard/trace.json\"}"),
        "trace.io");
    add(ENTRY(opguard_census_compare_widths),
        dup_str("{\"first\":" CAPTURE("a", "s0", "2") ",\"second\":" CAPTURE("b", "s1", "2") "}"),
        "census.same_width");
    add(ENTRY(opguard_census), dup_str("{\"capture\":{\"format\":\"opguard.census/capture-v1\"}}"),
        NULL);
    cases[case_count - 1].code = "document.missing_field";
    add(ENTRY(opguard_alignment_map_apply),
        dup_str("{\"protocol_version\":2,\"artifact\":\"a\",\"alignment_map\":\"m\","
                "\"output\":\"o\"}"),
        "align.unsupported_protocol_version");
    add(ENTRY(opguard_job_merge), dup_str("{\"summaries\":[{\"format\":\"x\"}]}"),
        "job.wrong_format");
    add(ENTRY(opguard_compare), dup_str("{\"baseline\":[],\"candidate\":[]}"),
        "compare.no_runs");
    add(ENTRY(opguard_seam_verdict),
        fixture_request("{\"request_path\":", "select/trace_missing.request.json", "}"), NULL);
}

/* One call; on an unexpected answer, a failure naming the case. */
static void check_call(int thread, const call_case *c) {
    char *envelope = c->fn(c->request);
    const char *why = judge(envelope, c->code);
    char what[256];
    snprintf(what, sizeof what, "%s(%.60s)", c->name, c->request ? c->request : "NULL");
    if (why) fail(thread, what, why);
    else if (c->expected && strcmp(envelope, c->expected) != 0)
        fail(thread, what, "differs from the lone caller's answer");
    opguard_string_free(envelope);
}

/* `a` `b` `c` joined; frees the three. */
static char *joined(char *a, char *b, char *c) {
    char *out = malloc(strlen(a) + strlen(b) + strlen(c) + 1);
    if (!out) { fprintf(stderr, "out of memory\n"); exit(2); }
    strcpy(out, a);
    strcat(out, b);
    strcat(out, c);
    free(a);
    free(b);
    free(c);
    return out;
}

/* A second call onto the same output must be refused, nothing overwritten. */
static void expect_output_exists(int thread, const char *name, entry_fn fn, const char *request) {
    char *envelope = fn(request);
    const char *why = judge(envelope, "align.output_exists");
    char what[256];
    snprintf(what, sizeof what, "%s(output exists)", name);
    if (why) fail(thread, what, why);
    opguard_string_free(envelope);
}

/* Export to a fresh path, apply an empty map to it, and refuse both again. */
static void write_round(int thread, int round) {
    char view[4096], map[4096], reviewed[4096], records[4096];
    char *export_request, *apply_request, *envelope, *sha;
    const char *why;
    FILE *f;
    snprintf(records, sizeof records, "%s/align/two_runs.records.jsonl", fixtures_dir);
    snprintf(view, sizeof view, "%s/t%d-r%d.view.json", scratch_dir, thread, round);
    snprintf(map, sizeof map, "%s/t%d-r%d.map.json", scratch_dir, thread, round);
    snprintf(reviewed, sizeof reviewed, "%s/t%d-r%d.reviewed.json", scratch_dir, thread, round);
    export_request = joined(quoted_request("{\"records\":", records, ","),
                            quoted_request("\"output\":", view, "}"), dup_str(""));
    apply_request = joined(quoted_request("{\"protocol_version\":1,\"artifact\":", view, ","),
                           quoted_request("\"alignment_map\":", map, ","),
                           quoted_request("\"output\":", reviewed, "}"));
    envelope = opguard_export_build(export_request);
    sha = envelope ? strstr(envelope, "\"output_sha256\":\"") : NULL;
    if ((why = judge(envelope, NULL))) {
        fail(thread, "opguard_export_build", why);
    } else if (!sha || strlen(sha) < 17 + 64) {
        fail(thread, "opguard_export_build", "no output_sha256");
    } else if (!(f = fopen(map, "wb"))) {
        fail(thread, "opguard_alignment_map_apply", "cannot write the map");
    } else {
        char *applied;
        fprintf(f, "{\"version\":1,\"artifact_sha256\":\"%.64s\",\"reviews\":[]}", sha + 17);
        fclose(f);
        applied = opguard_alignment_map_apply(apply_request);
        if ((why = judge(applied, NULL))) fail(thread, "opguard_alignment_map_apply", why);
        opguard_string_free(applied);
        expect_output_exists(thread, "opguard_alignment_map_apply", opguard_alignment_map_apply,
                             apply_request);
        expect_output_exists(thread, "opguard_export_build", opguard_export_build,
                             export_request);
    }
    opguard_string_free(envelope);
    free(export_request);
    free(apply_request);
}

static void *worker(void *arg) {
    int thread = (int)(size_t)arg;
    int round;
    size_t i;
    for (round = 0; round < rounds; round++) {
        /* Each thread starts at a different case so the same entry point
         * runs concurrently with different ones. */
        for (i = 0; i < case_count; i++)
            check_call(thread, &cases[(i + (size_t)thread * 7) % case_count]);
        if (opguard_kernel_match("gemm_kernel", "void gemm_kernel<float>(float*)") != 1)
            fail(thread, "opguard_kernel_match", "expected 1");
        if (opguard_kernel_match(NULL, "x") != OPGUARD_STATUS_NULL_ARGUMENT)
            fail(thread, "opguard_kernel_match(NULL)", "expected OPGUARD_STATUS_NULL_ARGUMENT");
        if (opguard_kernel_match("x", "\xff") != OPGUARD_STATUS_INVALID_UTF8)
            fail(thread, "opguard_kernel_match(bad UTF-8)", "expected OPGUARD_STATUS_INVALID_UTF8");
        write_round(thread, round);
    }
    return NULL;
}

int main(int argc, char **argv) {
    int threads = 8, t;
    size_t i;
    pthread_t handles[64];
    if (argc < 3) {
        fprintf(stderr, "usage: %s FIXTURES_DIR SCRATCH_DIR [THREADS [ROUNDS]]\n", argv[0]);
        return 2;
    }
    fixtures_dir = argv[1];
    scratch_dir = argv[2];
    if (argc > 3) threads = atoi(argv[3]);
    if (argc > 4) rounds = atoi(argv[4]);
    if (threads < 1 || threads > 64 || rounds < 1) {
        fprintf(stderr, "THREADS must be 1..64 and ROUNDS at least 1\n");
        return 2;
    }
    build_cases();

    /* The lone caller's answers; a case that fails here fails the run. */
    for (i = 0; i < case_count; i++) {
        call_case *c = &cases[i];
        char *envelope = c->fn(c->request);
        const char *why = judge(envelope, c->code);
        if (why) {
            char what[256];
            snprintf(what, sizeof what, "%s(%.60s)", c->name, c->request ? c->request : "NULL");
            fail(-1, what, why);
        }
        c->expected = envelope;
    }

    for (t = 0; t < threads; t++)
        if (pthread_create(&handles[t], NULL, worker, (void *)(size_t)t) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            return 2;
        }
    for (t = 0; t < threads; t++) pthread_join(handles[t], NULL);

    for (i = 0; i < case_count; i++) {
        opguard_string_free(cases[i].expected);
        free(cases[i].request);
    }
    printf("%s: %d threads x %d rounds x %zu calls (+ 3 direct, 5 writing) each, %d failures\n",
           failures ? "FAIL" : "ok", threads, rounds, case_count, failures);
    return failures ? 1 : 0;
}
