/** The sandbox carrier's XML reader: what TwiML documents hold is read as Twilio reads it, and what is not XML is refused. */
import { describe, expect, it } from 'vitest';
import { repliesOf } from '../../shared/sandbox/inbound-message.js';
import { readXml, textOf, XmlUnreadable } from '../../shared/sandbox/xml-reader.js';

describe('the sandbox XML reader', () => {
  it('reads elements, attributes and text in order, with entities, character references, CDATA and comments', () => {
    const [doc] = readXml(
      `<?xml version="1.0" encoding="UTF-8"?>\n<!-- a note --><Response>\n  <Say voice='a&amp;b'>Tom &amp; Jerry &lt;3 &#233;&#x41; &nbsp;</Say>\n  <Pause length="2"/><Play><![CDATA[ https://x.test/a?b=1&c=<2> ]]></Play>\n</Response>`,
    );
    expect(doc).toEqual({
      name: 'Response',
      attrs: {},
      children: [
        { name: 'Say', attrs: { voice: 'a&b' }, children: ['Tom & Jerry <3 éA &nbsp;'] },
        { name: 'Pause', attrs: { length: '2' }, children: [] },
        { name: 'Play', attrs: {}, children: ['https://x.test/a?b=1&c=<2>'] },
      ],
    });
  });

  it('joins an element’s text through its descendants, each piece trimmed', () => {
    const [say] = readXml('<Say> Hello <emphasis> there </emphasis> you </Say>');
    expect(textOf(say!)).toBe('Hellothereyou');
  });

  it('ignores text outside any element', () => {
    expect(readXml('{"json": true}')).toEqual([]);
  });

  it.each([
    ['an unclosed element', '<Response><Say>hi</Response>'],
    ['a stray closing tag', '<Response></Say></Response>'],
    ['an element left open', '<Response>'],
    ['a malformed attribute', '<Response a=1></Response>'],
    ['a DTD', '<!DOCTYPE x [<!ENTITY e "e">]><x/>'],
    ['an unterminated comment', '<Response><!-- </Response>'],
    ['a tag without a name', '<Response>< Say/></Response>'],
  ])('refuses %s', (_, xml) => {
    expect(() => readXml(xml)).toThrow(XmlUnreadable);
  });

  it('an inbound text’s replies are the <Message> texts (a <Body> when there is one), none when the answer is not TwiML', () => {
    expect(repliesOf('<Response><Message to="+1">You are unsubscribed.</Message><Message><Body>Reply &amp; win</Body></Message><Message/></Response>')).toEqual(
      ['You are unsubscribed.', 'Reply & win', ''],
    );
    expect(repliesOf('<Response/>')).toEqual([]);
    expect(repliesOf('not xml <')).toEqual([]);
    expect(repliesOf('{"ok":true}')).toEqual([]);
  });
});
