/**
 * Where a burst drain's wall time goes (test/bench/webhooks.ts): every DynamoDB call, SQS call
 * and delivery POST while the profile is on, classed by what it does, and each tied to the
 * poller's batch whose messages named its events (event ids in the call's input, the POST's
 * Service-Event-Id header), so the bench prints a batch's phases beside each class's busy time.
 * Counts and spans only: nothing here changes what the pipeline does.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';
import { type EventLoopUtilization, performance } from 'node:perf_hooks';

type Span = { start: number; end: number };

/** What a call does in the drain: the worker's read, lease, ledger and lease release; the relay's page reads, sends and marker deletes; the poller's receives and acks; the POSTs. */
export type DrainClass = 'read' | 'lease' | 'ledger' | 'release' | 'get' | 'relay read' | 'relay delete' | 'send' | 'receive' | 'ack' | 'post' | 'other';

interface Batch {
  received: number;
  acked?: number;
  events: number;
  spans: Partial<Record<DrainClass, Span[]>>;
}

export interface DrainProfileFigures {
  /** Per class: calls, their summed time and the wall time at least one was in flight (ms), within the drain. */
  classes: Record<string, { calls: number; sumMs: number; busyMs: number }>;
  batches: number;
  eventsPerBatch: number;
  /** Most batches between their receive and their ack at once. */
  maxBatchesAtOnce: number;
  /** ms from letting the relay go to the first and the last batch received. */
  firstBatchAt: number;
  lastBatchAt: number;
  /** Mean ms per batch of each phase, in order. */
  phases: { wait: number; read: number; lease: number; posts: number; ledgerTail: number; ack: number; total: number };
  /** The process's event-loop utilisation over the drain (0–1: the stack, the SQS emulator, the receiver, the bench). */
  eventLoopUtilization: number;
}

const EVENT_ID = /evt_[0-9A-HJKMNP-TV-Z]{26}/g;

const union = (spans: readonly Span[], from: number, to: number) => {
  let busy = 0;
  let reach = from;
  for (const s of [...spans].sort((a, b) => a.start - b.start)) {
    const start = Math.max(s.start, reach);
    const end = Math.min(s.end, to);
    if (end > start) busy += end - start;
    reach = Math.max(reach, s.end);
  }
  return busy;
};

const mean = (xs: readonly number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

export function drainProfile() {
  let on = false;
  let startedAt = 0;
  let elu: EventLoopUtilization | undefined;
  let eluOver: EventLoopUtilization | undefined;
  const spans: Partial<Record<DrainClass, Span[]>> = {};
  const batches: Batch[] = [];
  const batchOfEvent = new Map<string, Batch>();
  const batchOfReceipt = new Map<string, Batch>();
  const posts = new WeakMap<ClientRequest, { start: number; id: string }>();

  const add = (cls: DrainClass, span: Span, ids: readonly string[]) => {
    if (!on) return;
    spans[cls] = [...(spans[cls] ?? []), span];
    const batch = ids.map((id) => batchOfEvent.get(id)).find(Boolean);
    if (batch) batch.spans[cls] = [...(batch.spans[cls] ?? []), span];
  };

  const onRequest = (m: unknown) => {
    const { request } = m as { request: ClientRequest };
    const id = request.getHeader('service-event-id');
    if (on && typeof id === 'string') posts.set(request, { start: performance.now(), id });
  };
  const onResponse = (m: unknown) => {
    const { request } = m as { request: ClientRequest };
    const post = posts.get(request);
    if (post) add('post', { start: post.start, end: performance.now() }, [post.id]);
  };

  return {
    start() {
      on = true;
      startedAt = performance.now();
      elu = performance.eventLoopUtilization();
      subscribe('http.client.request.start', onRequest);
      subscribe('http.client.response.finish', onResponse);
    },
    /** The drain is over (its last receipt): the event loop's share is taken here; calls still running are recorded until stop. */
    drained() {
      eluOver = performance.eventLoopUtilization(elu);
    },
    stop() {
      on = false;
      unsubscribe('http.client.request.start', onRequest);
      unsubscribe('http.client.response.finish', onResponse);
    },
    /** A DynamoDB call (command name without "Command") that ran from `start` to `end`. */
    dynamo(name: string, input: unknown, start: number, end: number) {
      if (!on) return;
      const text = JSON.stringify(input);
      const ids = text.match(EVENT_ID) ?? [];
      const cls: DrainClass =
        name === 'TransactWriteItems'
          ? text.includes('webhook_attempt')
            ? 'ledger'
            : text.includes('SET lease_id')
              ? 'lease'
              : text.includes('REMOVE lease_id')
                ? 'release'
                : 'other'
          : name === 'UpdateItem' && text.includes('SET lease_id')
            ? 'lease'
            : name === 'BatchGetItem'
              ? 'read'
              : name === 'GetItem'
                ? 'get'
                : name === 'Query' && text.includes('OUTBOX')
                  ? 'relay read'
                  : name === 'BatchWriteItem'
                    ? 'relay delete'
                    : 'other';
      add(cls, { start, end }, ids);
    },
    /** An SQS call, the relay's or the worker's (sends) or the poller's (receives, acks). */
    sqs(name: string, input: unknown, output: unknown, start: number, end: number) {
      if (!on) return;
      if (name === 'ReceiveMessage') {
        const messages = (output as { Messages?: { Body?: string; ReceiptHandle?: string }[] } | undefined)?.Messages ?? [];
        if (messages.length > 0) {
          const ids = messages.flatMap((m) => m.Body?.match(EVENT_ID) ?? []);
          const batch: Batch = { received: end, events: ids.length, spans: {} };
          batches.push(batch);
          for (const id of ids) batchOfEvent.set(id, batch);
          for (const m of messages) if (m.ReceiptHandle) batchOfReceipt.set(m.ReceiptHandle, batch);
        }
        add('receive', { start, end }, []);
      } else if (name === 'DeleteMessageBatch') {
        const entries = (input as { Entries?: { ReceiptHandle?: string }[] }).Entries ?? [];
        const batch = entries.map((e) => batchOfReceipt.get(e.ReceiptHandle ?? '')).find(Boolean);
        if (batch) batch.acked ??= start;
        add('ack', { start, end }, []);
      } else if (name === 'SendMessageBatch' || name === 'SendMessage') add('send', { start, end }, []);
      else add('other', { start, end }, []);
    },
    /** The figures over the drain (from start to `drainEnd`, a performance.now() instant). */
    figures(drainEnd: number): DrainProfileFigures {
      const classes = Object.fromEntries(
        Object.entries(spans).map(([cls, list]) => [
          cls,
          {
            calls: list.length,
            sumMs: list.reduce((a, s) => a + Math.max(0, Math.min(s.end, drainEnd) - Math.max(s.start, startedAt)), 0),
            busyMs: union(list, startedAt, drainEnd),
          },
        ]),
      );
      const first = (b: Batch, ...cls: DrainClass[]) => Math.min(...cls.flatMap((c) => (b.spans[c] ?? []).map((s) => s.start)));
      const last = (b: Batch, ...cls: DrainClass[]) => Math.max(...cls.flatMap((c) => (b.spans[c] ?? []).map((s) => s.end)));
      const whole = batches.filter((b) => b.acked !== undefined && b.spans.post?.length);
      const phase = (f: (b: Batch) => number) => mean(whole.map(f).filter((x) => Number.isFinite(x)));
      const edges = batches.flatMap((b) => [
        { t: b.received, d: 1 },
        { t: b.acked ?? Number.POSITIVE_INFINITY, d: -1 },
      ]);
      let atOnce = 0;
      let maxAtOnce = 0;
      for (const e of edges.sort((a, b) => a.t - b.t || a.d - b.d)) {
        atOnce += e.d;
        maxAtOnce = Math.max(maxAtOnce, atOnce);
      }
      return {
        classes,
        batches: batches.length,
        eventsPerBatch: mean(batches.map((b) => b.events)),
        maxBatchesAtOnce: maxAtOnce,
        firstBatchAt: batches.length ? Math.min(...batches.map((b) => b.received)) - startedAt : NaN,
        lastBatchAt: batches.length ? Math.max(...batches.map((b) => b.received)) - startedAt : NaN,
        phases: {
          wait: phase((b) => first(b, 'read', 'lease') - b.received),
          read: phase((b) => last(b, 'read') - first(b, 'read')),
          lease: phase((b) => last(b, 'lease') - first(b, 'lease')),
          posts: phase((b) => last(b, 'post') - first(b, 'post')),
          ledgerTail: phase((b) => Math.max(0, last(b, 'ledger', 'release') - last(b, 'post'))),
          ack: phase((b) => b.acked! - Math.max(last(b, 'post'), last(b, 'ledger', 'release'))),
          total: phase((b) => b.acked! - b.received),
        },
        eventLoopUtilization: (eluOver ?? performance.eventLoopUtilization(elu)).utilization,
      };
    },
  };
}
