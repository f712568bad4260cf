/**
 * A campaign's launch steps in one process (launchNow in shared/campaigns/driver.ts), over the
 * launch and the dial mocked: nudges that come while a step runs share the one step after it —
 * which starts only once that one ended, so it sees their freed slots — and never run beside it;
 * a step's dials do not hold the next step back.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';

/** Each launch step's release, in the order they started. */
const steps: (() => void)[] = [];
/** Each dial's release, in the order they started. */
const dials: (() => void)[] = [];
let running = 0;
let mostAtOnce = 0;

vi.mock('../../../shared/repositories/campaigns.js', async (actual) => ({
  ...(await actual<object>()),
  getCampaign: vi.fn(async (tenantId: string, id: string) => ({ tenant_id: tenantId, id, status: 'running', pool_number_ids: [], agent_version_id: 'agv_1' })),
}));
vi.mock('../../../shared/campaigns/launch.js', () => ({
  launchAttempts: vi.fn(async (_c: unknown, _at: unknown, dispatch: (call: unknown) => Promise<void>) => {
    running++;
    mostAtOnce = Math.max(mostAtOnce, running);
    await new Promise<void>((r) => steps.push(r));
    running--;
    await dispatch({ id: `cal_${steps.length}`, tenant_id: 'ten_1', agent_version_id: 'agv_1' });
    return 1;
  }),
}));
vi.mock('../../../shared/calls/pinned-versions.js', () => ({ pinnedVersion: vi.fn(async () => null) }));
vi.mock('../../../shared/calls/dispatch.js', () => ({
  dispatchCall: vi.fn(() => new Promise<void>((r) => dials.push(r))),
}));

const { launchNow } = await import('../../../shared/campaigns/driver.js');

/** Lets every settled promise's callbacks run. */
const settle = () => new Promise((r) => setTimeout(r, 0));

beforeEach(() => {
  steps.length = 0;
  dials.length = 0;
  running = 0;
  mostAtOnce = 0;
});

describe('launch steps of one campaign in one process', () => {
  it('run one at a time; the nudges that came meanwhile share the next, which starts after the running one', async () => {
    const done: string[] = [];
    const nudge = (name: string, campaign = 'cmp_1') => launchNow('ten_1', campaign).then(() => void done.push(name));
    const a = nudge('a');
    await settle();
    expect(steps).toHaveLength(1);
    const rest = ['b', 'c', 'd'].map((n) => nudge(n));
    await settle();
    expect(steps).toHaveLength(1); // b, c and d wait: no step beside the running one

    steps[0]!();
    await settle();
    expect(steps).toHaveLength(2); // the one step after it, shared by b, c and d
    // Step 1's dial is still going; step 2 runs anyway, and a finishes only once its dial is done.
    expect(dials).toHaveLength(1);
    expect(done).toEqual([]);
    dials[0]!();
    await settle();
    expect(done).toEqual(['a']);

    steps[1]!();
    await settle();
    dials[1]!();
    await Promise.all([a, ...rest]);
    expect(done.sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(steps).toHaveLength(2);
    expect(mostAtOnce).toBe(1);
  });

  it('another campaign steps beside it', async () => {
    const one = launchNow('ten_1', 'cmp_2');
    const two = launchNow('ten_1', 'cmp_3');
    await settle();
    expect(steps).toHaveLength(2);
    for (const release of steps) release();
    await settle();
    for (const release of dials) release();
    expect(await Promise.all([one, two])).toEqual([1, 1]);
  });
});
