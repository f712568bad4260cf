/**
 * A phase's CPU profile, taken in-process (node:inspector) so it covers that phase only, and its
 * summary: the functions that spent the most CPU themselves and in what they called. Used by a
 * bench when BENCH_CPU_PROFILE names a directory (the .cpuprofile files open in Chrome DevTools).
 */
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  file: string;
  sampledMs: number;
  self: { fn: string; ms: number }[];
  /** The application's own functions (shared/, functions/, infra/) by their time with what they called. */
  total: { fn: string; ms: number }[];
}

/** Starts profiling now; `stop` writes `<dir>/<name>.cpuprofile` and summarises it. */
export async function startCpuProfile(dir: string, name: string): Promise<{ stop(): Promise<ProfileSummary> }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');
  return {
    async stop() {
      const { profile } = (await session.post('Profiler.stop')) as { profile: Profile };
      session.disconnect();
      const file = join(dir, `${name}.cpuprofile`);
      await writeFile(file, JSON.stringify(profile));
      return { file, ...summarise(profile) };
    },
  };
}

const label = (n: ProfileNode) => {
  const url = n.callFrame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(shared|functions|infra|test|bin)\//, '$1/');
  return `${n.callFrame.functionName || '(anonymous)'} ${url}:${n.callFrame.lineNumber + 1}`;
};

/** Not work: the sampler's own frames. */
const NOT_WORK = new Set(['(idle)', '(root)', '(program)']);

/** Self and total milliseconds per function, idle time left out (a recursive function's total counted once per sample). */
function summarise(profile: Profile, top = 25): Omit<ProfileSummary, 'file'> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let sampled = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i + 1] ?? 0;
    if (byId.get(id)!.callFrame.functionName === '(idle)') return;
    sampled += us;
    const own = label(byId.get(id)!);
    self.set(own, (self.get(own) ?? 0) + us);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const k = label(byId.get(cur)!);
      if (seen.has(k) || NOT_WORK.has(byId.get(cur)!.callFrame.functionName)) continue;
      seen.add(k);
      total.set(k, (total.get(k) ?? 0) + us);
    }
  });
  const ranked = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([fn, us]) => ({ fn, ms: us / 1000 }));
  const app = new Map([...total].filter(([fn]) => /^\S+ (shared|functions|infra)\//.test(fn)));
  return { sampledMs: sampled / 1000, self: ranked(self), total: ranked(app) };
}
