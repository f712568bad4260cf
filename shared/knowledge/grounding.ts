/**
 * The grounding checker port: after a call, the claims of the agent turns that used the pack
 * are checked against the passages each turn cited. The embedded default is the lexical
 * checker (shared/policy/knowledge/grounding.ts: numbers, dates and names of a claim must
 * appear in a cited passage; its limits are written there). An LLM judge (a model asked,
 * per claim, whether the cited passages entail it) fits the same port as a deployment
 * option; it is not built here.
 */
import type { CallFacts } from '../policy/analysis/facts.js';
import { checkGrounding, type GroundingResult } from '../policy/knowledge/grounding.js';
import { loadPackVersion } from './pack-index.js';

export interface GroundingChecker {
  check(
    turns: readonly { turn_index: number; text: string; passage_ids: readonly string[] }[],
    passages: ReadonlyMap<string, string>,
    known: readonly string[],
  ): Promise<GroundingResult>;
}

const lexicalChecker: GroundingChecker = { check: async (turns, passages, known) => checkGrounding(turns, passages, known) };

/**
 * The knowledge facts of a finished call: the pinned pack, and the grounding check of the
 * agent turns that cited passages. Both null when the version names no pack; grounding null
 * when the version's passages cannot be read.
 */
export async function knowledgeFacts(
  tenantId: string,
  pack: { id: string | null; version: number | null },
  turns: CallFacts['turns'],
  known: readonly string[],
  checker: GroundingChecker = lexicalChecker,
): Promise<Pick<CallFacts, 'knowledge_pack' | 'grounding'>> {
  if (!pack.id || !pack.version) return { knowledge_pack: null, grounding: null };
  const knowledge_pack = { id: pack.id, version: pack.version };
  const loaded = await loadPackVersion(tenantId, pack.id, pack.version);
  if (!loaded) return { knowledge_pack, grounding: null };
  const used = turns.flatMap((t, i) => (t.speaker === 'agent' && t.passage_ids?.length ? [{ turn_index: i, text: t.text, passage_ids: t.passage_ids }] : []));
  const texts = new Map([...loaded.passages].map(([id, p]) => [id, `${p.title} ${p.heading ?? ''} ${p.text}`]));
  const result = await checker.check(used, texts, known);
  return { knowledge_pack, grounding: { turns_using_pack: used.length, claims_checked: result.claims_checked, unsupported: result.unsupported } };
}
