/*
 * The Arrow C stream of opguard_table_stream, consumed from C the way an
 * Arrow consumer does (only the structs of the Arrow specification, no
 * Arrow library), including consumers that stop early.
 *
 *   opguard_table_stream TRACE TABLE BATCH_ROWS
 *
 * Prints one line `full rows=N batches=B dur_ns=S` (every batch read, the
 * int64 column dur_ns summed; S is 0 for a table without it), then checks:
 *   - a consumer that takes one batch, releases the stream, and only then
 *     releases the batch it kept (the batch outlives the stream);
 *   - a consumer that releases the stream without reading anything;
 *   - a consumer that takes the schema only;
 *   - get_next after the last batch keeps answering "no more" (release NULL);
 *   - opguard_table_streams: the same table and the metadata from one read
 *     (`several rows=N batches=B dur_ns=S`), the metadata released unread;
 *   - errors: a missing file, an unknown table, a NULL `out` give error
 *     envelopes with their codes and leave release == NULL.
 * Built with -fsanitize=address by the Rust test (tests/suite/table_stream.rs),
 * so LeakSanitizer fails the run when a batch, schema or stream is not
 * released, and AddressSanitizer when anything is used after its release.
 * Exits non-zero on any failed check.
 */
#include "opguard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

static void check(int ok, const char *what) {
    if (ok) {
        printf("ok %s\n", what);
    } else {
        printf("FAIL %s\n", what);
        failures++;
    }
}

static char *request(const char *path, const char *table, const char *batch_rows) {
    static char buf[8192];
    /* Shared data paths hold no quote or backslash. */
    snprintf(buf, sizeof buf, "{\"path\": \"%s\", \"table\": \"%s\", \"batch_rows\": %s}",
             path, table, batch_rows);
    return buf;
}

/* Opens the stream; exits on an error envelope. */
static void open_stream(const char *req, struct ArrowArrayStream *s) {
    char *env = opguard_table_stream(req, s);
    if (strncmp(env, "{\"ok\":true", 10) != 0 || s->release == NULL) {
        printf("FAIL opguard_table_stream: %s\n", env);
        opguard_string_free(env);
        exit(1);
    }
    opguard_string_free(env);
}

/* The index of the child named `name`, or -1. */
static int64_t child_named(const struct ArrowSchema *schema, const char *name) {
    for (int64_t i = 0; i < schema->n_children; i++) {
        if (strcmp(schema->children[i]->name, name) == 0) return i;
    }
    return -1;
}

/* Reads every batch of an open stream; sums rows and the int64 dur_ns. */
static void drain(struct ArrowArrayStream *s, int64_t *rows, int64_t *batches, int64_t *dur) {
    struct ArrowSchema schema;
    struct ArrowArray batch;
    int64_t col;
    *rows = *batches = *dur = 0;
    if (s->get_schema(s, &schema) != 0) {
        printf("FAIL get_schema: %s\n", s->get_last_error(s));
        exit(1);
    }
    check(strcmp(schema.format, "+s") == 0, "the schema is a struct of columns");
    col = child_named(&schema, "dur_ns");
    check(col < 0 || strcmp(schema.children[col]->format, "l") == 0, "dur_ns is int64");
    for (;;) {
        if (s->get_next(s, &batch) != 0) {
            printf("FAIL get_next: %s\n", s->get_last_error(s));
            exit(1);
        }
        if (batch.release == NULL) break;
        (*batches)++;
        *rows += batch.length;
        if (col >= 0) {
            const struct ArrowArray *c = batch.children[col];
            const int64_t *values = (const int64_t *)c->buffers[1];
            for (int64_t i = 0; i < c->length; i++) *dur += values[c->offset + batch.offset + i];
        }
        batch.release(&batch);
        check(batch.release == NULL, "a released batch marks itself released");
    }
    /* The end is sticky: asking again still says there is nothing more. */
    check(s->get_next(s, &batch) == 0 && batch.release == NULL, "get_next after the end");
    schema.release(&schema);
}

static void read_everything(const char *req) {
    struct ArrowArrayStream s;
    int64_t rows, batches, dur;
    open_stream(req, &s);
    drain(&s, &rows, &batches, &dur);
    s.release(&s);
    check(s.release == NULL, "a released stream marks itself released");
    printf("full rows=%lld batches=%lld dur_ns=%lld\n", (long long)rows, (long long)batches,
           (long long)dur);
}

/* opguard_table_streams: the table and metadata from one read; the table is
 * read whole, the metadata stream released unread, in the other order. */
static void several(const char *path, const char *table, const char *batch_rows) {
    struct ArrowArrayStream s[2];
    char req[8192];
    char *env;
    int64_t rows, batches, dur;
    snprintf(req, sizeof req,
             "{\"path\": \"%s\", \"tables\": [\"metadata\", \"%s\"], \"batch_rows\": %s}",
             path, strcmp(table, "metadata") == 0 ? "device" : table, batch_rows);
    env = opguard_table_streams(req, s, 2);
    if (strstr(env, "\"ok\":true") == NULL || s[0].release == NULL || s[1].release == NULL) {
        printf("FAIL opguard_table_streams: %s\n", env);
        opguard_string_free(env);
        exit(1);
    }
    opguard_string_free(env);
    drain(&s[1], &rows, &batches, &dur);
    s[1].release(&s[1]);
    s[0].release(&s[0]);
    check(s[0].release == NULL && s[1].release == NULL, "both streams released");
    printf("several rows=%lld batches=%lld dur_ns=%lld\n", (long long)rows, (long long)batches,
           (long long)dur);
    /* count must be the number of tables named */
    env = opguard_table_streams(req, s, 1);
    check(strstr(env, "\"code\":\"capi.invalid_request\"") != NULL && s[0].release == NULL,
          "a count unlike the tables named");
    opguard_string_free(env);
}

static void stop_after_one_batch(const char *req) {
    struct ArrowArrayStream s;
    struct ArrowArray kept;
    open_stream(req, &s);
    check(s.get_next(&s, &kept) == 0, "first batch");
    s.release(&s);
    /* The batch is the consumer's: it is read (AddressSanitizer would see a
     * use after free) and released after its stream. */
    if (kept.release != NULL) {
        if (kept.length > 0) {
            const struct ArrowArray *first = kept.children[0];
            volatile int32_t head = ((const int32_t *)first->buffers[1])[0];
            (void)head;
        }
        kept.release(&kept);
        check(kept.release == NULL, "a batch kept past its stream's release");
    }
}

static void release_unread(const char *req) {
    struct ArrowArrayStream s;
    open_stream(req, &s);
    s.release(&s);
    check(s.release == NULL, "a stream released before any batch");
}

static void schema_only(const char *req) {
    struct ArrowArrayStream s;
    struct ArrowSchema schema;
    open_stream(req, &s);
    check(s.get_schema(&s, &schema) == 0 && schema.release != NULL, "schema only");
    s.release(&s);
    schema.release(&schema);
}

static void error_case(const char *req, const char *code, int null_out) {
    struct ArrowArrayStream s;
    char want[256];
    char *env;
    memset(&s, 0xAB, sizeof s); /* what an uninitialised struct may hold */
    env = opguard_table_stream(req, null_out ? NULL : &s);
    snprintf(want, sizeof want, "\"code\":\"%s\"", code);
    check(strstr(env, "\"ok\":false") != NULL && strstr(env, want) != NULL, code);
    if (!null_out) check(s.release == NULL, "an error leaves release NULL");
    opguard_string_free(env);
}

int main(int argc, char **argv) {
    char req[8192];
    char missing[8192];
    if (argc != 4) {
        fprintf(stderr, "usage: %s TRACE TABLE BATCH_ROWS\n", argv[0]);
        return 2;
    }
    snprintf(req, sizeof req, "%s", request(argv[1], argv[2], argv[3]));
    read_everything(req);
    several(argv[1], argv[2], argv[3]);
    stop_after_one_batch(req);
    release_unread(req);
    schema_only(req);
    snprintf(missing, sizeof missing, "%s.missing", argv[1]);
    error_case(request(missing, argv[2], argv[3]), "trace.io", 0);
    error_case(request(argv[1], "kernels", argv[3]), "capi.invalid_request", 0);
    error_case(request(argv[1], argv[2], argv[3]), "capi.null_argument", 1);
    if (failures) {
        printf("%d checks failed\n", failures);
        return 1;
    }
    printf("all passed\n");
    return 0;
}
