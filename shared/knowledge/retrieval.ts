/**
 * The retrieval port and its embedded lexical implementation.
 *
 * A RetrievalBackend builds a serialisable index once, at publish, and loads it in the
 * runtime; a loaded index answers a contact turn with the best passages of the pinned pack
 * version above a relevance threshold. The lexical backend is MiniSearch (BM25+, maintained,
 * no native code, and its index serialises with toJSON / loadJS, so it is built once at publish
 * and stored with the version rather than rebuilt per call). It runs offline and in tests.
 *
 * An embeddings backend (Bedrock Titan or OpenAI embeddings, vectors stored beside the
 * passages, cosine top-k) fits the same port as a deployment setting; it is not built: this
 * deployment retrieves lexically only (KNOWLEDGE_RETRIEVAL accepts `lexical`).
 */
import MiniSearch, { type AsPlainObject } from 'minisearch';
import type { Passage } from '../policy/knowledge/passages.js';

interface RetrievedPassage {
  id: string;
  text: string;
  title: string;
  score: number;
}

export interface PassageIndex {
  /** The best passages for `query`, best first, at most `limit`, only those above the backend's threshold. */
  search(query: string, limit?: number): RetrievedPassage[];
}

export interface RetrievalBackend {
  readonly name: string;
  /** The index of a version's passages, as JSON-ready data stored with the version. */
  build(passages: readonly Passage[]): unknown;
  load(passages: readonly Passage[], stored: unknown): PassageIndex;
}

/** Passages given to the model per contact turn. */
const RETRIEVAL_TOP_K = 3;
/** Share of the query's content words a passage must hold to count as an answer. */
const MIN_QUERY_COVERAGE = 0.5;
/**
 * A word in more than this share of a version's passages says nothing about which passage
 * answers (its BM25 weight is near zero) but costs a score for each of them: it is left out of
 * the query, unless every word of the query is that common.
 */
const COMMON_TERM_SHARE = 0.2;
/** Below this many passages every word counts: a share of a handful says nothing. */
const COMMON_TERM_MIN_PASSAGES = 100;

/** How many passages each term of a stored index appears in (any field). */
function documentFrequencies(stored: AsPlainObject): Map<string, number> {
  const df = new Map<string, number>();
  for (const [term, fields] of stored.index) {
    const docs = new Set<string>();
    for (const freqs of Object.values(fields)) for (const id of Object.keys(freqs)) docs.add(id);
    df.set(term, docs.size);
  }
  return df;
}

// Words that carry no subject: a question made only of them retrieves nothing.
const STOP = new Set(
  'a an and are as at be but by can could did do does for from had has have how i if in is it its me my no not of on or our please so than that the their them then there these they this to us was we were what when where which who why will with would you your yours hi hello hey tell know about any some just like get give'.split(
    ' ',
  ),
);

/** Lower case, stop words out, a plural "s" dropped: "Hours" and "hour" meet. */
function processTerm(term: string): string | null {
  const t = term.toLowerCase();
  if (STOP.has(t) || t.length < 2) return null;
  return t.length > 3 && t.endsWith('s') && !t.endsWith('ss') ? t.slice(0, -1) : t;
}

const OPTIONS = {
  fields: ['title', 'heading', 'text'],
  idField: 'n',
  processTerm,
  searchOptions: { boost: { title: 1.5, heading: 1.5 }, prefix: false, fuzzy: false, combineWith: 'OR' as const },
};

const queryTerms = (query: string) => [...new Set((query.match(/[\p{L}\p{N}]+/gu) ?? []).map(processTerm).filter((t): t is string => !!t))];

export const lexicalBackend: RetrievalBackend = {
  name: 'lexical',
  build(passages) {
    const index = new MiniSearch<{ n: number; title: string; heading: string; text: string }>(OPTIONS);
    index.addAll(passages.map((p, n) => ({ n, title: p.title, heading: p.heading ?? '', text: p.text })));
    return index.toJSON();
  },
  load(passages, stored) {
    const index = MiniSearch.loadJS(stored as AsPlainObject, OPTIONS);
    const df = documentFrequencies(stored as AsPlainObject);
    const count = (stored as AsPlainObject).documentCount;
    const common = count < COMMON_TERM_MIN_PASSAGES ? Number.POSITIVE_INFINITY : count * COMMON_TERM_SHARE;
    return {
      search(query, limit = RETRIEVAL_TOP_K) {
        const all = queryTerms(query);
        if (!all.length) return [];
        const rare = all.filter((t) => (df.get(t) ?? 0) <= common);
        const terms = rare.length ? rare : all;
        const needed = Math.max(1, Math.ceil(terms.length * MIN_QUERY_COVERAGE));
        return index
          .search(terms.join(' '))
          .filter((r) => new Set(r.queryTerms).size >= needed)
          .slice(0, limit)
          .map((r) => {
            const p = passages[r.id as number]!;
            return { id: p.id, text: p.text, title: p.title, score: r.score };
          });
      },
    };
  },
};

/** The backend this deployment builds and reads indexes with. */
export const retrievalBackend = (): RetrievalBackend => lexicalBackend;
