/**
 * A published pack's documents split into passages, pure and deterministic: the same documents
 * always give the same passages with the same ids, so a passage id names one text for the
 * life of the version it belongs to.
 *
 * Sizes (characters, after whitespace is collapsed): a passage holds whole paragraphs up to
 * PASSAGE_TARGET_CHARS; a paragraph longer than PASSAGE_MAX_CHARS is cut at sentence ends,
 * and a sentence longer than that at the last space before the limit (or hard, at the limit).
 * Markdown headings start a new passage and are carried as its `heading`. Ids are
 * `<document_id>.p<n>` (n from 1, in document order).
 */

export const PASSAGE_TARGET_CHARS = 600;
export const PASSAGE_MAX_CHARS = 1000;

export interface PackDocumentInput {
  id: string;
  title: string;
  content: string;
}

export interface Passage {
  id: string;
  document_id: string;
  title: string;
  /** The nearest Markdown heading above the passage, if any. */
  heading: string | null;
  text: string;
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Cuts one over-long paragraph at sentence ends, then at spaces. */
function cutLong(paragraph: string): string[] {
  const sentences = paragraph
    .match(/[^.!?]+(?:[.!?]+|$)/g)
    ?.map(squash)
    .filter(Boolean) ?? [paragraph];
  const pieces: string[] = [];
  for (let s of sentences) {
    while (s.length > PASSAGE_MAX_CHARS) {
      const space = s.lastIndexOf(' ', PASSAGE_MAX_CHARS);
      const at = space > PASSAGE_MAX_CHARS / 2 ? space : PASSAGE_MAX_CHARS;
      pieces.push(s.slice(0, at).trim());
      s = s.slice(at).trim();
    }
    if (s) pieces.push(s);
  }
  // Sentences are packed back together up to the target.
  const out: string[] = [];
  for (const p of pieces) {
    const last = out.length - 1;
    if (last >= 0 && out[last]!.length + 1 + p.length <= PASSAGE_TARGET_CHARS) out[last] = `${out[last]} ${p}`;
    else out.push(p);
  }
  return out;
}

/** Markdown emphasis, links and list markers read as plain words. */
const plainMarkdown = (line: string) =>
  line
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '')
    .replace(/[*_`]{1,3}([^*_`]+)[*_`]{1,3}/g, '$1');

export function splitDocument(doc: PackDocumentInput): Passage[] {
  const blocks: { heading: string | null; paragraphs: string[] }[] = [{ heading: null, paragraphs: [] }];
  let paragraph: string[] = [];
  const endParagraph = () => {
    const text = squash(paragraph.join(' '));
    if (text) blocks[blocks.length - 1]!.paragraphs.push(text);
    paragraph = [];
  };
  for (const raw of doc.content.replace(/\r\n?/g, '\n').split('\n')) {
    const heading = /^\s{0,3}#{1,6}\s+(.*)$/.exec(raw);
    if (heading) {
      endParagraph();
      blocks.push({ heading: squash(plainMarkdown(heading[1]!).replace(/#+\s*$/, '')) || null, paragraphs: [] });
    } else if (!raw.trim()) endParagraph();
    // A list item is a paragraph of its own: it usually states one fact.
    else if (/^\s*(?:[-*+]|\d+[.)])\s+/.test(raw)) {
      endParagraph();
      paragraph.push(plainMarkdown(raw));
      endParagraph();
    } else paragraph.push(plainMarkdown(raw));
  }
  endParagraph();

  const passages: Passage[] = [];
  for (const block of blocks) {
    let current = '';
    const flush = () => {
      if (!current) return;
      passages.push({ id: `${doc.id}.p${passages.length + 1}`, document_id: doc.id, title: doc.title, heading: block.heading, text: current });
      current = '';
    };
    for (const p of block.paragraphs) {
      for (const piece of p.length > PASSAGE_MAX_CHARS ? cutLong(p) : [p]) {
        if (current && current.length + 1 + piece.length > PASSAGE_TARGET_CHARS) flush();
        current = current ? `${current} ${piece}` : piece;
      }
    }
    flush();
  }
  return passages;
}

/** Every document's passages, documents in the order given (the store gives them by id). */
export const splitPassages = (docs: readonly PackDocumentInput[]): Passage[] => docs.flatMap(splitDocument);
