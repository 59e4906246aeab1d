/* SPDX-License-Identifier: MIT */
/*
 * The questions waiting for a broker (os/askq.h): a queue, one thread that asks, a completion
 * eventfd. The thread is the broker's only user once started; the loop's side only queues,
 * cancels and takes answers, each under the queue's lock.
 */
#include "os/askq.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "sbx/cleanup.h"

struct item {
	struct item *next;
	uint64_t id;
	char *json, *prompt;
	uint64_t deadline; /* CLOCK_MONOTONIC ms */
	bool cancelled;
	struct sbx_broker_answer ans;
};

struct sbx_askq {
	struct sbx_broker *broker;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t more;
	struct item *queued, *done; /* FIFO each (head first) */
	struct item *asking;        /* the one at the broker now, NULL: none */
	bool stop;
	size_t outstanding; /* put and not yet taken (the loop's thread only) */
	int done_fd;        /* eventfd: answers wait */
	int wake_fd;        /* eventfd: the cancel fd the broker polls */
};

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void push(struct item **list, struct item *it)
{
	it->next = NULL;
	while (*list)
		list = &(*list)->next;
	*list = it;
}

static void drain(int fd)
{
	uint64_t n;

	while (read(fd, &n, sizeof(n)) < 0 && errno == EINTR)
		;
}

static void poke(int fd)
{
	uint64_t one = 1;

	while (write(fd, &one, sizeof(one)) < 0 && errno == EINTR)
		;
}

/* The broker's cancel: the wake fd was poked (or once before the question is put): has the
 * question being asked been cancelled? */
static bool is_cancelled(void *ctx)
{
	struct sbx_askq *q = ctx;
	bool c;

	drain(q->wake_fd);
	pthread_mutex_lock(&q->lock);
	c = q->stop || (q->asking && q->asking->cancelled);
	pthread_mutex_unlock(&q->lock);
	return c;
}

static void *run(void *arg)
{
	struct sbx_askq *q = arg;
	const struct sbx_broker_cancel cancel = {q->wake_fd, is_cancelled, q};

	pthread_mutex_lock(&q->lock);
	for (;;) {
		struct item *it;
		uint64_t now;

		while (!q->queued && !q->stop)
			pthread_cond_wait(&q->more, &q->lock);
		if (!q->queued)
			break; /* stopped, nothing left */
		it = q->queued;
		q->queued = it->next;
		q->asking = it;
		pthread_mutex_unlock(&q->lock);
		now = mono_ms();
		memset(&it->ans, 0, sizeof(it->ans));
		if (now >= it->deadline) {
			/* it waited behind others for all its time */
			it->ans.decider = SBX_SUP_BY_TIMEOUT;
			snprintf(it->ans.reason, sizeof(it->ans.reason),
			         "no answer in time (the question waited behind others)");
		} else {
			sbx_broker_ask(q->broker, it->json, it->prompt,
			               (unsigned)(it->deadline - now), &cancel, &it->ans);
		}
		pthread_mutex_lock(&q->lock);
		q->asking = NULL;
		push(&q->done, it);
		poke(q->done_fd);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

int sbx_askq_new(struct sbx_broker *b, struct sbx_askq **out, struct sbx_error *err)
{
	struct sbx_askq *q = calloc(1, sizeof(*q));
	int r;

	*out = NULL;
	if (!q)
		return sbx_error_set(err, SBX_ERR_SETUP, ENOMEM, "out of memory");
	q->broker = b;
	q->done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	q->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (q->done_fd < 0 || q->wake_fd < 0) {
		r = -errno;
		goto fail;
	}
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->more, NULL);
	r = -pthread_create(&q->thread, NULL, run, q);
	if (r < 0) {
		pthread_mutex_destroy(&q->lock);
		pthread_cond_destroy(&q->more);
		goto fail;
	}
	*out = q;
	return 0;
fail:
	sbx_closep(&q->done_fd);
	sbx_closep(&q->wake_fd);
	free(q);
	return sbx_error_set(err, SBX_ERR_SETUP, -r, "the broker's thread: %s", strerror(-r));
}

int sbx_askq_fd(const struct sbx_askq *q)
{
	return q ? q->done_fd : -1;
}

int sbx_askq_put(struct sbx_askq *q, uint64_t id, const char *json, const char *prompt,
                 uint64_t deadline_mono_ms)
{
	struct item *it = calloc(1, sizeof(*it));

	if (!it)
		return -ENOMEM;
	it->id = id;
	it->json = strdup(json ? json : "{}");
	it->prompt = strdup(prompt ? prompt : "");
	it->deadline = deadline_mono_ms;
	if (!it->json || !it->prompt) {
		free(it->json);
		free(it->prompt);
		free(it);
		return -ENOMEM;
	}
	pthread_mutex_lock(&q->lock);
	push(&q->queued, it);
	pthread_cond_signal(&q->more);
	pthread_mutex_unlock(&q->lock);
	q->outstanding++;
	return 0;
}

static void item_free(struct item *it)
{
	free(it->json);
	free(it->prompt);
	free(it);
}

int sbx_askq_take(struct sbx_askq *q, uint64_t *id, struct sbx_broker_answer *ans)
{
	struct item *it;

	pthread_mutex_lock(&q->lock);
	it = q->done;
	if (it)
		q->done = it->next;
	if (!q->done)
		drain(q->done_fd);
	pthread_mutex_unlock(&q->lock);
	if (!it)
		return 0;
	if (q->outstanding)
		q->outstanding--;
	*id = it->id;
	*ans = it->ans;
	item_free(it);
	return 1;
}

bool sbx_askq_busy(const struct sbx_askq *q)
{
	return q && q->outstanding;
}

void sbx_askq_cancel(struct sbx_askq *q, uint64_t id)
{
	bool wake = false;

	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	for (struct item *it = q->queued; it; it = it->next)
		if (it->id == id)
			it->cancelled = true;
	if (q->asking && q->asking->id == id) {
		q->asking->cancelled = true;
		wake = true;
	}
	pthread_mutex_unlock(&q->lock);
	if (wake)
		poke(q->wake_fd);
}

void sbx_askq_cancel_all(struct sbx_askq *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	for (struct item *it = q->queued; it; it = it->next)
		it->cancelled = true;
	if (q->asking)
		q->asking->cancelled = true;
	pthread_mutex_unlock(&q->lock);
	poke(q->wake_fd);
}

void sbx_askq_free(struct sbx_askq *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	q->stop = true;
	for (struct item *it = q->queued; it; it = it->next)
		it->cancelled = true;
	if (q->asking)
		q->asking->cancelled = true;
	pthread_cond_signal(&q->more);
	pthread_mutex_unlock(&q->lock);
	poke(q->wake_fd);
	pthread_join(q->thread, NULL);
	while (q->done) {
		struct item *it = q->done;

		q->done = it->next;
		item_free(it);
	}
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->more);
	sbx_closep(&q->done_fd);
	sbx_closep(&q->wake_fd);
	free(q);
}
