/**
 * Knowledge packs (`BENCH_ONLY=packs npm run bench`): a 5 MB pack of 1,000 documents is
 * published (draft read, passages split, MiniSearch index built, blob gzipped and stored in
 * chunks, version committed), then loaded as the runtime loads it (cold, then cached) and
 * searched once per contact turn over 1,000 turns: retrieval p50/p99 per turn against the
 * target p99 ≤ 20 ms, printed beside the runtime's own overhead target (test/bench/runtime.ts).
 */
import { createTenant } from '../../shared/admin/bootstrap.js';
import { loadPackVersion } from '../../shared/knowledge/pack-index.js';
import { publishPack } from '../../shared/knowledge/publish.js';
import { addDocument, createPack } from '../../shared/repositories/knowledge-packs.js';
import { fmt, percentile, pool } from './stats.js';

const DOCUMENTS = 1000;
const DOCUMENT_BYTES = 5 * 1024;
const TURNS = 1000;

/** A deterministic generator (mulberry32): the same pack every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TOPICS =
  'appointment cleaning whitening implant crown filling braces insurance parking invoice refund warranty installation delivery membership subscription battery inverter panel roof permit inspection financing lease discount voucher'.split(
    ' ',
  );
// A vocabulary of 6,000 made-up words drawn by a Zipf law, as prose is: a few words everywhere, most words rare.
// (A 60-word vocabulary would put every query word in every passage: no real pack reads like that.)
const SYLLABLES =
  'ba be bi bo bu da de di do du ka ke ki ko ku la le li lo lu ma me mi mo mu na ne ni no nu ra re ri ro ru sa se si so su ta te ti to tu va ve vi vo vu'.split(
    ' ',
  );
const WORDS = Array.from(
  { length: 6000 },
  (_, i) => SYLLABLES[i % 50]! + SYLLABLES[Math.floor(i / 50) % 50]! + (i >= 2500 ? SYLLABLES[Math.floor(i / 2500)]! : ''),
);
const zipf = (rand: () => number) => WORDS[Math.min(WORDS.length - 1, Math.floor(Math.exp(rand() * Math.log(WORDS.length + 1)) - 1))]!;
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

function documentText(rand: () => number, topic: string): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const paragraphs: string[] = [`# ${topic[0]!.toUpperCase()}${topic.slice(1)}`];
  let size = 0;
  while (size < DOCUMENT_BYTES) {
    const sentences = Array.from({ length: 4 }, () => {
      const words = Array.from({ length: 10 + Math.floor(rand() * 8) }, () => (rand() < 0.05 ? topic : zipf(rand)));
      return `${words.join(' ')} on ${pick(DAYS)} for $${Math.floor(rand() * 900) + 10}.`;
    });
    const p = sentences.join(' ');
    paragraphs.push(p);
    size += p.length + 2;
  }
  return paragraphs.join('\n\n').slice(0, DOCUMENT_BYTES);
}

export interface PackFigures {
  documents: number;
  bytes: number;
  passages: number;
  publishMs: number;
  blobChunks: number;
  coldLoadMs: number;
  retrieval: { p50: number; p99: number; turns: number; answered: number };
}

export async function measurePacks(): Promise<PackFigures> {
  const t = await createTenant({ name: 'Bench packs', adminEmail: 'packs@bench.test' });
  const tenantId = t.tenant_id;
  const pack = await createPack(tenantId, { name: 'Bench pack' }, new Date());
  const rand = random(42);
  const docs = Array.from({ length: DOCUMENTS }, (_, i) => ({
    title: `${TOPICS[i % TOPICS.length]} notes ${i}`,
    content: documentText(rand, TOPICS[i % TOPICS.length]!),
  }));
  await pool(docs, 16, async (d) => {
    await addDocument(tenantId, pack.id, d, new Date());
  });
  const bytes = docs.reduce((n, d) => n + Buffer.byteLength(d.content), 0);

  const started = performance.now();
  const version = await publishPack(tenantId, pack.id, new Date());
  const publishMs = performance.now() - started;
  if (!version) throw new Error('the pack was not published');

  const loadStarted = performance.now();
  const loaded = await loadPackVersion(tenantId, pack.id, version.version);
  const coldLoadMs = performance.now() - loadStarted;
  if (!loaded) throw new Error('the version did not load');

  const qrand = random(7);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(qrand() * xs.length)]!;
  const times: number[] = [];
  let answered = 0;
  for (let i = 0; i < TURNS; i++) {
    const query =
      i % 4 === 3
        ? `Do you sell ${pick(['gift', 'coffee', 'pet'])} ${pick(['cards', 'beans', 'food'])}?`
        : `What does the ${pick(TOPICS)} ${zipf(qrand)} ${zipf(qrand)} cost on ${pick(DAYS)}?`;
    const at = performance.now();
    // As the runtime retrieves per contact turn: through the per-process cache, then the index.
    const hits = (await loadPackVersion(tenantId, pack.id, version.version))!.index.search(query);
    times.push(performance.now() - at);
    if (hits.length) answered++;
  }
  return {
    documents: version.document_count,
    bytes,
    passages: version.passage_count,
    publishMs,
    blobChunks: version.blob_chunks,
    coldLoadMs,
    retrieval: { p50: percentile(times, 50), p99: percentile(times, 99), turns: TURNS, answered },
  };
}

export function printPacks(f: PackFigures): void {
  console.log('\nKnowledge packs (lexical retrieval, MiniSearch BM25+, index built at publish and stored with the version)');
  console.log(
    `  publish of ${f.documents} documents, ${fmt(f.bytes / 1024 / 1024, 2)} MB: ${fmt(f.publishMs, 0)} ms, ${f.passages} passages, blob in ${f.blobChunks} chunks`,
  );
  console.log(`  first load of the version in a process (blob read, gunzip, index loaded): ${fmt(f.coldLoadMs, 0)} ms`);
  console.log(
    `  retrieval per contact turn p50 ${fmt(f.retrieval.p50, 2)} ms p99 ${fmt(f.retrieval.p99, 2)} ms over ${f.retrieval.turns} turns, ${f.retrieval.answered} with passages (target p99 ≤ 20), added to the runtime overhead per turn (BENCH_ONLY=runtime: targets p50 ≤ 15, p99 ≤ 60)`,
  );
}
