/**
 * Knowledge packs (the contract knowledge_pack_id / knowledge_pack_version; Part 9: referenced
 * by id and integer version): a tenant's reference material, edited as a draft of documents
 * and published into immutable, numbered versions the agent answers from.
 *
 * Limits (422 beyond, each at its field): a document's content is 1 to
 * KNOWLEDGE_LIMITS.documentBytes UTF-8 bytes of text or Markdown (no NUL or other control
 * characters but tab and line breaks, no U+FFFD: binary or mis-encoded uploads are refused
 * rather than stored garbled); a pack's draft holds at most KNOWLEDGE_LIMITS.documentsPerPack
 * documents and KNOWLEDGE_LIMITS.packBytes bytes of content in all (409-free: a 422 at
 * `body.content` says which limit).
 */
import * as z from 'zod';
import { KNOWLEDGE_LIMITS } from '../policy/knowledge/limits.js';
import { timestamp } from './common.js';

/** Control characters other than tab, LF, CR — what text never holds and binary always does — and U+FFFD, the mark of bytes that were not UTF-8. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: exactly what it refuses
const NOT_TEXT = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\uFFFD]/;

const utf8Bytes = (s: string) => Buffer.byteLength(s, 'utf8');

export const packIdPath = z.object({ pack_id: z.string().min(1).max(64) });
export const documentPath = packIdPath.extend({ document_id: z.string().min(1).max(64) });
export const versionPath = packIdPath.extend({ version: z.coerce.number().int().min(1).max(1_000_000) });

export const knowledgePackCreateRequest = z
  .strictObject({
    name: z.string().trim().min(1).max(KNOWLEDGE_LIMITS.nameChars),
    description: z.string().max(KNOWLEDGE_LIMITS.descriptionChars).optional(),
  })
  .meta({ id: 'KnowledgePackCreateRequest' });

export const knowledgePackUpdateRequest = z
  .strictObject({
    name: z.string().trim().min(1).max(KNOWLEDGE_LIMITS.nameChars).optional(),
    description: z.string().max(KNOWLEDGE_LIMITS.descriptionChars).nullable().optional(),
  })
  .meta({ id: 'KnowledgePackUpdateRequest' });

export const knowledgeDocumentCreateRequest = z
  .strictObject({
    title: z.string().trim().min(1).max(KNOWLEDGE_LIMITS.titleChars),
    content: z
      .string()
      .refine((s) => s.trim().length > 0, { message: 'A document needs some text', params: { type: 'string_empty' } })
      .refine((s) => !NOT_TEXT.test(s), {
        message: 'Content must be text or Markdown in UTF-8: no control characters (binary) and no U+FFFD (bytes that were not UTF-8)',
        params: { type: 'not_text' },
      })
      .refine((s) => utf8Bytes(s) <= KNOWLEDGE_LIMITS.documentBytes, {
        message: `A document holds at most ${KNOWLEDGE_LIMITS.documentBytes} bytes of UTF-8 text`,
        params: { type: 'document_too_large' },
      })
      .describe(`Plain text or Markdown; 1 to ${KNOWLEDGE_LIMITS.documentBytes} UTF-8 bytes. Data the agent quotes from, never instructions.`),
    source_ref: z.string().max(KNOWLEDGE_LIMITS.sourceRefChars).optional().describe('Where it came from (a URL, a file name): kept, never read'),
  })
  .meta({ id: 'KnowledgeDocumentCreateRequest' });

export const knowledgePack = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    document_count: z.int().describe('Documents in the draft'),
    draft_bytes: z.int().describe('UTF-8 bytes of content in the draft'),
    latest_version: z.int().nullable().describe('The latest published version; null until published'),
    revision: z.int(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'KnowledgePack' });
export type KnowledgePack = z.infer<typeof knowledgePack>;

export const knowledgeDocument = z
  .object({
    id: z.string(),
    pack_id: z.string(),
    title: z.string(),
    content: z.string(),
    source_ref: z.string().nullable(),
    bytes: z.int(),
    created_at: timestamp,
  })
  .meta({ id: 'KnowledgeDocument' });
export type KnowledgeDocument = z.infer<typeof knowledgeDocument>;

export const knowledgePackVersion = z
  .object({
    pack_id: z.string(),
    version: z.int(),
    content_hash: z.string().describe('SHA-256 of the frozen documents (canonical JSON): equal content, equal hash'),
    document_count: z.int(),
    passage_count: z.int(),
    bytes: z.int(),
    retrieval: z.string().describe('The retrieval backend the index was built for (lexical: MiniSearch BM25+)'),
    documents: z
      .array(z.object({ id: z.string(), title: z.string(), source_ref: z.string().nullable(), passage_ids: z.array(z.string()) }))
      .describe('What the version froze, without the content'),
    published_at: timestamp,
  })
  .meta({ id: 'KnowledgePackVersion' });
export type KnowledgePackVersion = z.infer<typeof knowledgePackVersion>;

export const knowledgePackVersionSummary = knowledgePackVersion.omit({ documents: true }).meta({ id: 'KnowledgePackVersionSummary' });
