/*
 * podium-load: a load generator for Podium's ZeroMQ front, in C against libzmq, run as a
 * process of its own beside the stack (scripts/bench, Tests/Benchmarks/python/bench_stack.py).
 *
 *   podium-load --endpoint tcp://127.0.0.1:5555 --request FILE
 *               [--connections 4] [--window 64] [--seconds 10] [--warmup 1]
 *               [--count N] [--players P] [--boards B] [--latency] [--rate R]
 *
 * Each of --connections threads owns one DEALER and keeps --window requests in flight. The
 * request is the text of FILE with these placeholders filled in for every request:
 *   __ID__      a request id unique in the run
 *   __VALUE__   a random integer in [0, 1000000)
 *   __PLAYER__  "bench-<k>" for a random k in [0, --players)
 *   __SEQ__     0, 1, 2, ... across all threads (with --count: exactly N requests, for preloading)
 *   __BOARD__   "board-<k>" for a random k in [0, --boards) (default 1: the requests spread over
 *               that many boards, so over the leaderboard's partitions)
 *
 * --rate R paces the sends at R requests per second in all (each connection its share; 0, the
 * default, sends as fast as the window allows): a steady background load.
 * Timed mode (default): one second of warm-up (--warmup), then --seconds measured. --count N
 * instead sends exactly N requests and measures all of them. With --latency, each request's
 * round trip (send to reply; use --window 1, since a DEALER's replies are matched by order) is
 * recorded and the percentiles printed.
 *
 * Prints one JSON line: answered, errors (replies of type "error"), seconds, rate (answered per
 * second), and with --latency p50_us, p99_us, p999_us, max_us; firstError holds the start of
 * the first error reply. Exit status 1 if any reply was an error, 2 on bad usage.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

enum { MAX_CONNECTIONS = 256, MAX_REQUEST = 16384 };

static const char *endpoint;
static char *template_text;
static int connections = 4, window_size = 64, players = 1000, boards = 1, latency = 0;
static double rate = 0; /* requests per second in all, 0: unpaced */
static double seconds = 10, warmup = 1;
static long long count = 0;
static void *context;
static atomic_int measuring, stopping;
static atomic_llong sequence, remaining;

struct worker {
    pthread_t thread;
    int index;
    long long answered, errors;
    char first_error[301];
    uint32_t *samples; /* latency samples in microseconds */
    size_t sample_count, sample_capacity;
    uint64_t random;
};

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static uint64_t next_random(struct worker *w) { /* xorshift64* */
    w->random ^= w->random >> 12;
    w->random ^= w->random << 25;
    w->random ^= w->random >> 27;
    return w->random * 2685821657736338717ULL;
}

/* Fills the template into buf; returns the length, or -1 if it does not fit. */
static int render(struct worker *w, long long counter, char *buf, size_t size) {
    size_t out = 0;
    const char *p = template_text;
    while (*p) {
        char piece[64];
        const char *insert = NULL;
        size_t skip = 0;
        if (strncmp(p, "__ID__", 6) == 0) {
            snprintf(piece, sizeof piece, "c%d-%lld-%llu", w->index, counter, (unsigned long long)(next_random(w) & 0xffffffff));
            insert = piece, skip = 6;
        } else if (strncmp(p, "__VALUE__", 9) == 0) {
            snprintf(piece, sizeof piece, "%llu", (unsigned long long)(next_random(w) % 1000000));
            insert = piece, skip = 9;
        } else if (strncmp(p, "__PLAYER__", 10) == 0) {
            snprintf(piece, sizeof piece, "bench-%llu", (unsigned long long)(next_random(w) % (uint64_t)players));
            insert = piece, skip = 10;
        } else if (strncmp(p, "__BOARD__", 9) == 0) {
            snprintf(piece, sizeof piece, "board-%llu", (unsigned long long)(next_random(w) % (uint64_t)boards));
            insert = piece, skip = 9;
        } else if (strncmp(p, "__SEQ__", 7) == 0) {
            snprintf(piece, sizeof piece, "%lld", atomic_fetch_add(&sequence, 1));
            insert = piece, skip = 7;
        }
        if (insert) {
            size_t n = strlen(insert);
            if (out + n >= size) return -1;
            memcpy(buf + out, insert, n);
            out += n;
            p += skip;
        } else {
            if (out + 1 >= size) return -1;
            buf[out++] = *p++;
        }
    }
    buf[out] = 0;
    return (int)out;
}

static void record(struct worker *w, double started) {
    if (w->sample_count == w->sample_capacity) {
        w->sample_capacity = w->sample_capacity ? w->sample_capacity * 2 : 65536;
        w->samples = realloc(w->samples, w->sample_capacity * sizeof *w->samples);
        if (!w->samples) { perror("podium-load: realloc"); exit(2); }
    }
    double us = (now_seconds() - started) * 1e6;
    w->samples[w->sample_count++] = us > 4e9 ? 4000000000u : (uint32_t)us;
}

static int wants_more(void) {
    if (atomic_load(&stopping)) return 0;
    if (count > 0) return atomic_fetch_sub(&remaining, 1) > 0;
    return 1;
}

static void *run(void *arg) {
    struct worker *w = arg;
    void *dealer = zmq_socket(context, ZMQ_DEALER);
    int zero = 0, timeout = 10000;
    zmq_setsockopt(dealer, ZMQ_LINGER, &zero, sizeof zero);
    zmq_setsockopt(dealer, ZMQ_RCVTIMEO, &timeout, sizeof timeout);
    if (zmq_connect(dealer, endpoint) != 0) {
        fprintf(stderr, "podium-load: connect %s: %s\n", endpoint, zmq_strerror(zmq_errno()));
        exit(2);
    }
    char *request = malloc(MAX_REQUEST), *reply = malloc(MAX_REQUEST);
    double *sent_at = calloc((size_t)window_size, sizeof *sent_at);
    size_t head = 0, tail = 0; /* ring of send times: replies come back in order on one DEALER */
    int in_flight = 0;
    long long counter = 0;
    double interval = rate > 0 ? connections / rate : 0, next_at = now_seconds();
    for (;;) {
        while (in_flight < window_size && (rate <= 0 || now_seconds() >= next_at) && wants_more()) {
            next_at += interval;
            int length = render(w, ++counter, request, MAX_REQUEST);
            if (length < 0) { fprintf(stderr, "podium-load: request longer than %d bytes\n", MAX_REQUEST); exit(2); }
            sent_at[head] = now_seconds();
            head = (head + 1) % (size_t)window_size;
            if (zmq_send(dealer, request, (size_t)length, 0) < 0) {
                fprintf(stderr, "podium-load: send: %s\n", zmq_strerror(zmq_errno()));
                exit(2);
            }
            in_flight++;
        }
        if (rate > 0 && count == 0 && !atomic_load(&stopping) && in_flight < window_size) {
            /* Paced: wait for a reply only until the next send is due. */
            double wait = next_at - now_seconds();
            if (wait <= 0) continue;
            zmq_pollitem_t item = {dealer, 0, ZMQ_POLLIN, 0};
            if (zmq_poll(&item, 1, (long)(wait * 1000) + 1) <= 0) continue;
        }
        if (in_flight == 0) break;
        int size = zmq_recv(dealer, reply, MAX_REQUEST - 1, 0);
        if (size < 0) {
            fprintf(stderr, "podium-load: no reply within %d ms (%s)\n", timeout, zmq_strerror(zmq_errno()));
            exit(2);
        }
        if (size > MAX_REQUEST - 1) size = MAX_REQUEST - 1;
        reply[size] = 0;
        in_flight--;
        double started = sent_at[tail];
        tail = (tail + 1) % (size_t)window_size;
        if (!atomic_load(&measuring)) continue;
        w->answered++;
        if (latency) record(w, started);
        if (strstr(reply, "\"type\":\"error\"")) {
            if (w->errors++ == 0) snprintf(w->first_error, sizeof w->first_error, "%.300s", reply);
        }
    }
    free(request);
    free(reply);
    free(sent_at);
    zmq_close(dealer);
    return NULL;
}

static int compare(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void usage(void) {
    fprintf(stderr, "usage: podium-load --endpoint E --request FILE [--connections N] [--window W] [--seconds S]\n"
                    "                   [--warmup S] [--count N] [--players P] [--boards B] [--latency] [--rate R]\n");
    exit(2);
}

int main(int argc, char **argv) {
    const char *request_file = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--latency") == 0) { latency = 1; continue; }
        if (!v) usage();
        if (strcmp(a, "--endpoint") == 0) endpoint = v;
        else if (strcmp(a, "--request") == 0) request_file = v;
        else if (strcmp(a, "--connections") == 0) connections = atoi(v);
        else if (strcmp(a, "--window") == 0) window_size = atoi(v);
        else if (strcmp(a, "--seconds") == 0) seconds = atof(v);
        else if (strcmp(a, "--warmup") == 0) warmup = atof(v);
        else if (strcmp(a, "--count") == 0) count = atoll(v);
        else if (strcmp(a, "--players") == 0) players = atoi(v);
        else if (strcmp(a, "--boards") == 0) boards = atoi(v);
        else if (strcmp(a, "--rate") == 0) rate = atof(v);
        else usage();
        i++;
    }
    if (!endpoint || !request_file || connections < 1 || connections > MAX_CONNECTIONS || window_size < 1 || players < 1
        || boards < 1 || seconds <= 0 || warmup < 0 || count < 0)
        usage();
    FILE *f = fopen(request_file, "r");
    if (!f) { perror(request_file); return 2; }
    template_text = calloc(MAX_REQUEST, 1);
    size_t n = fread(template_text, 1, MAX_REQUEST - 1, f);
    fclose(f);
    while (n > 0 && (template_text[n - 1] == '\n' || template_text[n - 1] == '\r')) template_text[--n] = 0;

    context = zmq_ctx_new();
    atomic_store(&remaining, count);
    struct worker *workers = calloc((size_t)connections, sizeof *workers);
    if (count > 0) atomic_store(&measuring, 1);
    double started = now_seconds();
    for (int i = 0; i < connections; i++) {
        workers[i].index = i;
        workers[i].random = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)(i + 1) * 0xBF58476D1CE4E5B9ULL) ^ (uint64_t)getpid();
        pthread_create(&workers[i].thread, NULL, run, &workers[i]);
    }
    double measured;
    if (count > 0) {
        for (int i = 0; i < connections; i++) pthread_join(workers[i].thread, NULL);
        measured = now_seconds() - started;
    } else {
        usleep((useconds_t)(warmup * 1e6));
        atomic_store(&measuring, 1);
        double from = now_seconds();
        usleep((useconds_t)(seconds * 1e6));
        atomic_store(&measuring, 0);
        measured = now_seconds() - from;
        atomic_store(&stopping, 1);
        for (int i = 0; i < connections; i++) pthread_join(workers[i].thread, NULL);
    }
    long long answered = 0, errors = 0;
    const char *first_error = NULL;
    size_t samples = 0;
    for (int i = 0; i < connections; i++) {
        answered += workers[i].answered;
        errors += workers[i].errors;
        if (!first_error && workers[i].errors) first_error = workers[i].first_error;
        samples += workers[i].sample_count;
    }
    printf("{\"answered\": %lld, \"errors\": %lld, \"seconds\": %.3f, \"rate\": %.1f", answered, errors, measured,
           measured > 0 ? (double)answered / measured : 0.0);
    if (latency && samples > 0) {
        uint32_t *all = malloc(samples * sizeof *all);
        size_t k = 0;
        for (int i = 0; i < connections; i++) {
            memcpy(all + k, workers[i].samples, workers[i].sample_count * sizeof *all);
            k += workers[i].sample_count;
        }
        qsort(all, samples, sizeof *all, compare);
        printf(", \"p50_us\": %u, \"p99_us\": %u, \"p999_us\": %u, \"max_us\": %u", all[samples / 2],
               all[(size_t)((double)samples * 0.99)], all[(size_t)((double)samples * 0.999)], all[samples - 1]);
        free(all);
    }
    if (first_error) {
        printf(", \"firstError\": \"");
        for (const char *c = first_error; *c; c++) {
            if (*c == '"' || *c == '\\') putchar('\\');
            if ((unsigned char)*c >= 0x20) putchar(*c);
        }
        printf("\"");
    }
    printf("}\n");
    zmq_ctx_term(context);
    return errors > 0 ? 1 : 0;
}
