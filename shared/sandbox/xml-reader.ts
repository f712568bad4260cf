/**
 * The XML the sandbox carrier reads: TwiML documents, as Twilio reads them. Elements,
 * attributes, text (trimmed; empty text dropped), CDATA, comments and the declaration; the
 * five predefined entities and character references (an unknown entity stays as written).
 * No DTD. Pure; XmlUnreadable when the text is not well-formed. Written here rather than
 * bundled as a parser package: the sandbox timeline worker carries it on every step, and it
 * reads nothing but these documents.
 */

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  /** Child elements and text, in document order. */
  children: XmlNode[];
}
export type XmlNode = XmlElement | string;

export class XmlUnreadable extends Error {}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const NAME = /[A-Za-z_:][-\w.:]*/y;
const ATTRIBUTE = /\s+([A-Za-z_:][-\w.:]*)\s*=\s*(?:"([^"<]*)"|'([^'<]*)')/y;
const TAG_END = /\s*(\/?)>/y;

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z]+);/g, (whole, ref: string) => {
    if (ref[0] !== '#') return ENTITIES[ref] ?? whole;
    const code = ref[1] === 'x' ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
    if (code > 0x10ffff) throw new XmlUnreadable(`character reference out of range: ${whole}`);
    return String.fromCodePoint(code);
  });
}

export const isElement = (node: XmlNode): node is XmlElement => typeof node !== 'string';

/** The text of an element and its descendants, joined (each piece trimmed). */
export const textOf = (element: XmlElement): string => element.children.map((c) => (isElement(c) ? textOf(c) : c)).join('');

/** The top-level elements of `xml` (a document has one; text outside any element is ignored). */
export function readXml(xml: string): XmlElement[] {
  const top: XmlElement = { name: '', attrs: {}, children: [] };
  const open: XmlElement[] = [top];
  const addText = (raw: string) => {
    const text = raw.trim();
    if (text) open[open.length - 1]!.children.push(text);
  };
  const endOf = (marker: string, from: number): number => {
    const at = xml.indexOf(marker, from);
    if (at === -1) throw new XmlUnreadable(`unterminated markup at ${from}`);
    return at;
  };
  let i = 0;
  while (i < xml.length) {
    const lt = xml.indexOf('<', i);
    if (lt === -1) {
      addText(decode(xml.slice(i)));
      break;
    }
    if (lt > i) addText(decode(xml.slice(i, lt)));
    if (xml.startsWith('<!--', lt)) {
      i = endOf('-->', lt + 4) + 3;
    } else if (xml.startsWith('<![CDATA[', lt)) {
      const end = endOf(']]>', lt + 9);
      addText(xml.slice(lt + 9, end));
      i = end + 3;
    } else if (xml.startsWith('<?', lt)) {
      i = endOf('?>', lt + 2) + 2;
    } else if (xml.startsWith('<!', lt)) {
      throw new XmlUnreadable('a DTD is not read');
    } else if (xml[lt + 1] === '/') {
      const end = endOf('>', lt + 2);
      const name = xml.slice(lt + 2, end).trim();
      const element = open.pop();
      if (!element || element === top || element.name !== name) throw new XmlUnreadable(`unexpected </${name}>`);
      i = end + 1;
    } else {
      NAME.lastIndex = lt + 1;
      const name = NAME.exec(xml)?.[0];
      if (!name) throw new XmlUnreadable(`not a tag at ${lt}`);
      const element: XmlElement = { name, attrs: {}, children: [] };
      let j = NAME.lastIndex;
      for (;;) {
        ATTRIBUTE.lastIndex = j;
        const attribute = ATTRIBUTE.exec(xml);
        if (!attribute) break;
        element.attrs[attribute[1]!] = decode(attribute[2] ?? attribute[3] ?? '');
        j = ATTRIBUTE.lastIndex;
      }
      TAG_END.lastIndex = j;
      const end = TAG_END.exec(xml);
      if (!end) throw new XmlUnreadable(`malformed <${name}>`);
      open[open.length - 1]!.children.push(element);
      if (end[1] !== '/') open.push(element);
      i = TAG_END.lastIndex;
    }
  }
  if (open.length !== 1) throw new XmlUnreadable(`<${open[open.length - 1]!.name}> is not closed`);
  return top.children.filter(isElement);
}
