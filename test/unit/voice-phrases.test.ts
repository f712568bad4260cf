import { describe, expect, it } from 'vitest';
import { detectCompliance, LINES, normalizeUtterance, PHRASES, spokenLine } from '../../shared/voice/phrases.js';

const kind = (text: string) => detectCompliance(text)?.kind ?? null;

describe('normalizeUtterance', () => {
  it('folds case, accents, apostrophes and punctuation', () => {
    expect(normalizeUtterance("  Don't CALL me — again!! ")).toBe('dont call me again');
    expect(normalizeUtterance('¿Hablo con una MÁQUINA?')).toBe('hablo con una maquina');
    expect(normalizeUtterance("Arrêtez de m’appeler, s'il vous plaît.")).toBe('arretez de mappeler sil vous plait');
    expect(normalizeUtterance('Hören Sie auf, mich anzurufen!')).toBe('horen sie auf mich anzurufen');
  });
});

describe('detectCompliance', () => {
  const cases: [lang: string, text: string, expected: 'opt_out' | 'wrong_person' | 'robot'][] = [
    ['en', 'Please stop calling me.', 'opt_out'],
    ['en', "Take me off your list, I don't want this.", 'opt_out'],
    ['en', 'Put me on the Do-Not-Call list', 'opt_out'],
    ['en', "Sorry, you've got the WRONG number", 'wrong_person'],
    ['en', 'There is no one here by that name', 'wrong_person'],
    ['en', 'Wait, are you a robot?', 'robot'],
    ['en', 'Am I talking to a real person?', 'robot'],
    ['en', 'Are you an A.I.?', 'robot'],
    ['es', '¡Deje de llamarme, por favor!', 'opt_out'],
    ['es', 'No me llame más.', 'opt_out'],
    ['es', 'Creo que tiene el número equivocado', 'wrong_person'],
    ['es', '¿Eres un robot?', 'robot'],
    ['es', '¿Hablo con una persona real?', 'robot'],
    ['fr', "Arrêtez de m'appeler !", 'opt_out'],
    ['fr', 'Retirez-moi de votre liste.', 'opt_out'],
    ['fr', "C'est un mauvais numéro.", 'wrong_person'],
    ['fr', 'Êtes-vous un robot ?', 'robot'],
    ['de', 'Rufen Sie mich nicht mehr an!', 'opt_out'],
    ['de', 'Hören Sie auf, mich anzurufen.', 'opt_out'],
    ['de', 'Sie sind falsch verbunden.', 'wrong_person'],
    ['de', 'Spreche ich mit einer Maschine?', 'robot'],
    ['pt', 'Pare de me ligar!', 'opt_out'],
    ['pt', 'Não me ligue mais.', 'opt_out'],
    ['pt', 'É número errado.', 'wrong_person'],
    ['pt', 'Você é um robô?', 'robot'],
    ['it', 'Smettete di chiamarmi!', 'opt_out'],
    ['it', 'Non mi chiami più, grazie.', 'opt_out'],
    ['it', 'Ha sbagliato numero.', 'wrong_person'],
    ['it', 'Sto parlando con una macchina?', 'robot'],
  ];
  it.each(cases)('%s: %s → %s', (lang, text, expected) => {
    expect(detectCompliance(text)).toMatchObject({ kind: expected, language: lang });
  });

  it.each([
    "Don't stop, go on",
    'Is this a good number to call?',
    'Are you really sure about Tuesday?',
    'Call me back tomorrow, please',
    'No pares, sigue.',
    '¿Es este un buen número para llamar?',
    "N'arrêtez pas, continuez.",
    'Hören Sie nicht auf, machen Sie weiter.',
    'Não pare, continue.',
    'Non smettere, continua.',
    '',
    '   ',
  ])('does not trigger on %j', (text) => {
    expect(kind(text)).toBeNull();
  });

  it('an opt-out wins over a robot question in the same breath', () => {
    expect(kind('Are you a robot? Stop calling me.')).toBe('opt_out');
  });

  it('a wrong person wins over a plain opt-out in the same breath (it says more)', () => {
    expect(kind("You have the wrong person. Please don't call this number again.")).toBe('wrong_person');
    expect(kind('Número equivocado, no me llame más.')).toBe('wrong_person');
    expect(kind("Please don't call me again.")).toBe('opt_out');
  });

  it('every phrase is written in normalised form, so it can match', () => {
    for (const [lang, set] of Object.entries(PHRASES)) {
      for (const phrase of [...set.opt_out, ...set.wrong_person, ...set.robot]) {
        expect(normalizeUtterance(phrase), `${lang}: ${phrase}`).toBe(phrase);
        expect(detectCompliance(phrase), `${lang}: ${phrase}`).not.toBeNull();
      }
    }
  });
});

describe('spokenLine', () => {
  it('speaks the call language by primary subtag, English otherwise', () => {
    expect(spokenLine('opt_out_ack', 'es-MX')).toBe(LINES.es!.opt_out_ack);
    expect(spokenLine('robot_answer', 'fr-CA')).toBe(LINES.fr!.robot_answer);
    expect(spokenLine('filler', 'ja-JP')).toBe(LINES.en!.filler);
  });
  it('has every line for every language with phrases', () => {
    expect(Object.keys(LINES).sort()).toEqual(Object.keys(PHRASES).sort());
    for (const lines of Object.values(LINES)) for (const v of Object.values(lines)) expect(v.trim().length).toBeGreaterThan(0);
  });
});
