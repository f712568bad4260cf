/**
 * The delivery work's slots: a key's capacity is never exceeded, waiters go in the order they
 * came, a slot given back twice counts once; the bookkeeping writes (ledger, marker deletes) run
 * at most three at once and a failed one frees its slot.
 */
import { describe, expect, it } from 'vitest';
import { bookkeeping, type Slots, takeSlot } from '../../shared/webhooks/slots.js';

/** A promise and its resolver, so a test decides when work ends. */
const gate = () => {
  let open = () => {};
  const done = new Promise<void>((resolve) => (open = resolve));
  return { done, open };
};

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('delivery slots', () => {
  it('lets `capacity` run at once, the next in the order they asked, and counts a slot given back twice once', async () => {
    const slots: Slots = new Map();
    const order: number[] = [];
    const frees = await Promise.all([takeSlot(slots, 'a', 2), takeSlot(slots, 'a', 2)]);
    const waiting = [3, 4].map(async (n) => {
      const free = await takeSlot(slots, 'a', 2);
      order.push(n);
      return free;
    });
    await settle();
    expect(order).toEqual([]);
    frees[0]!();
    frees[0]!();
    await settle();
    expect(order).toEqual([3]);
    frees[1]!();
    await settle();
    expect(order).toEqual([3, 4]);
    for (const free of await Promise.all(waiting)) free();
    // Every slot back: the key is forgotten.
    expect(slots.size).toBe(0);
  });

  it('runs at most three bookkeeping writes at once, and a failed one gives its slot back', async () => {
    let running = 0;
    let most = 0;
    const gates = Array.from({ length: 6 }, gate);
    const writes = gates.map((g, i) =>
      bookkeeping(async () => {
        running++;
        most = Math.max(most, running);
        await g.done;
        running--;
        if (i === 0) throw new Error('refused');
        return i;
      }).then(
        (value) => ({ ok: true as const, value }),
        (err: Error) => ({ ok: false as const, value: err.message }),
      ),
    );
    await settle();
    expect(running).toBe(3);
    for (const g of gates) {
      g.open();
      await settle();
    }
    const results = await Promise.all(writes);
    expect(most).toBe(3);
    expect(results).toEqual([{ ok: false, value: 'refused' }, ...[1, 2, 3, 4, 5].map((value) => ({ ok: true, value }))]);
  });
});
