/*
 * The C ABI starts no thread: every entry point that reads or writes files
 * runs on real inputs while this program counts pthread_create calls.
 *
 *   opguard_no_threads FIXTURES_DIR SCRATCH_DIR TRACE_A TRACE_B
 *
 * TRACE_A and TRACE_B are two real gzip profiler traces (read, exported
 * against each other). pthread_create is defined here, so the library's
 * calls bind to this definition (the executable comes first in symbol
 * lookup), which counts and forwards to the C library's. Prints one line per
 * call, `ok|FAIL <entry point> threads=<n>`, and exits non-zero if a call
 * failed or started a thread. Built against the shared library on Linux
 * (opguard-capi/tests/suite/no_threads.rs).
 */
#define _GNU_SOURCE
#include "opguard.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long started;
static int failures;

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *),
                   void *arg) {
    create_fn real;
    void *sym = dlsym(RTLD_NEXT, "pthread_create");
    started++;
    if (!sym) return 11; /* EAGAIN: no thread could be made */
    memcpy(&real, &sym, sizeof real);
    return real(thread, attr, start, arg);
}

/* Appends `s` to `out` as a JSON string (paths only: quotes, backslashes). */
static void json_str(char *out, size_t cap, const char *s) {
    size_t n = strlen(out);
    if (n + 1 < cap) out[n++] = '"';
    for (; *s && n + 2 < cap; s++) {
        if (*s == '"' || *s == '\\') out[n++] = '\\';
        out[n++] = *s;
    }
    if (n + 1 < cap) out[n++] = '"';
    out[n] = '\0';
}

/* Calls `entry` with `request`; the answer must be ok and no thread started.
 * Returns the answer (free with opguard_string_free). */
static char *call(const char *name, char *(*entry)(const char *), const char *request) {
    unsigned long before = started;
    char *answer = entry(request);
    unsigned long threads = started - before;
    int ok = answer && strncmp(answer, "{\"ok\":true", 10) == 0;
    if (ok && threads == 0) {
        printf("ok %s threads=0\n", name);
    } else {
        failures++;
        printf("FAIL %s threads=%lu %.300s\n", name, threads, answer ? answer : "(null)");
    }
    return answer;
}

int main(int argc, char **argv) {
    char req[16384], path[4096], view[4096], map_path[4096];
    char *answer, *sha;
    FILE *f;
    if (argc != 5) {
        fprintf(stderr, "usage: %s FIXTURES_DIR SCRATCH_DIR TRACE_A TRACE_B\n", argv[0]);
        return 64;
    }

    strcpy(req, "{\"path\":");
    json_str(req, sizeof req, argv[3]);
    strcat(req, "}");
    opguard_string_free(call("opguard_trace_info", opguard_trace_info, req));
    strcpy(req, "{\"top\":3,\"path\":");
    json_str(req, sizeof req, argv[3]);
    strcat(req, "}");
    opguard_string_free(call("opguard_profile_top_n", opguard_profile_top_n, req));

    strcpy(req, "{\"artifacts\":[{\"path\":");
    json_str(req, sizeof req, argv[3]);
    strcat(req, "},{\"path\":");
    json_str(req, sizeof req, argv[4]);
    strcat(req, "}]}");
    opguard_string_free(call("opguard_trace_launch_regions", opguard_trace_launch_regions, req));

    /* Two real traces exported against each other, gzip output. */
    snprintf(path, sizeof path, "%s/profiles.json.gz", argv[2]);
    strcpy(req, "{\"from_profile\":[{\"path\":");
    json_str(req, sizeof req, argv[3]);
    strcat(req, ",\"run\":\"a\"},{\"path\":");
    json_str(req, sizeof req, argv[4]);
    strcat(req, ",\"run\":\"b\"}],\"output\":");
    json_str(req, sizeof req, path);
    strcat(req, "}");
    opguard_string_free(call("opguard_export_build(from_profile)", opguard_export_build, req));

    /* A records file, plain output, then a map applied to it. */
    snprintf(path, sizeof path, "%s/align/two_runs.records.jsonl", argv[1]);
    snprintf(view, sizeof view, "%s/view.json.gz", argv[2]);
    strcpy(req, "{\"records\":");
    json_str(req, sizeof req, path);
    strcat(req, ",\"output\":");
    json_str(req, sizeof req, view);
    strcat(req, "}");
    answer = call("opguard_export_build(records)", opguard_export_build, req);
    sha = answer ? strstr(answer, "\"output_sha256\":\"") : NULL;
    snprintf(map_path, sizeof map_path, "%s/map.json", argv[2]);
    f = fopen(map_path, "wb");
    if (!sha || !f) {
        failures++;
        printf("FAIL opguard_alignment_map_apply: no export sha256 or no map file\n");
        if (f) fclose(f);
    } else {
        fprintf(f, "{\"version\":1,\"artifact_sha256\":\"%.64s\",\"reviews\":[]}",
                sha + strlen("\"output_sha256\":\""));
        fclose(f);
        snprintf(path, sizeof path, "%s/reviewed.json.gz", argv[2]);
        strcpy(req, "{\"protocol_version\":1,\"artifact\":");
        json_str(req, sizeof req, view);
        strcat(req, ",\"alignment_map\":");
        json_str(req, sizeof req, map_path);
        strcat(req, ",\"output\":");
        json_str(req, sizeof req, path);
        strcat(req, "}");
        opguard_string_free(
            call("opguard_alignment_map_apply", opguard_alignment_map_apply, req));
    }
    opguard_string_free(answer);

    snprintf(path, sizeof path, "%s/select/0720_inner_launcher.request.json", argv[1]);
    strcpy(req, "{\"request_path\":");
    json_str(req, sizeof req, path);
    strcat(req, "}");
    opguard_string_free(call("opguard_seam_verdict", opguard_seam_verdict, req));

    snprintf(path, sizeof path, "%s/scaling/seed003/trials.json", argv[1]);
    strcpy(req, "{\"trials_path\":");
    json_str(req, sizeof req, path);
    strcat(req, "}");
    opguard_string_free(call("opguard_scaling_correlate", opguard_scaling_correlate, req));

    if (failures) {
        printf("%d failure(s)\n", failures);
        return 1;
    }
    printf("all passed\n");
    return 0;
}
