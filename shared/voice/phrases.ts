/**
 * The deterministic compliance phrases the voice runtime acts on BEFORE any model turn, and
 * the fixed lines it speaks, per language. Pure: no clock, no I/O.
 *
 * An utterance is normalised (lower case, accents stripped, apostrophes dropped, other
 * punctuation → space, spaces collapsed) and a phrase matches only as whole words, so
 * "are you real" does not match "are you really sure". Phrases of every language below are
 * checked whatever the call's language (a caller may answer in another one); a wrong person
 * wins over a plain opt-out (it says more: "wrong person, don't call again" is both), which
 * wins over a robot question. The acknowledgement is spoken in
 * the call's language (English when the call's language has no lines here).
 *
 * | lang | opt-out (reason opt_out), e.g.            | wrong person (reason wrong_person), e.g. | "are you a robot?", e.g.            |
 * |------|-------------------------------------------|------------------------------------------|-------------------------------------|
 * | en   | stop calling · don't call me again · take me off your list · do not call list · unsubscribe | wrong number · wrong person · no one by that name · doesn't live here | are you a robot / a bot / a real person / human / an AI · am I talking to a machine · is this a recording |
 * | es   | deje de llamar(me) · no me llame más · no vuelva a llamar · quítenme de su lista | número equivocado · persona equivocada · aquí no vive | ¿eres un robot? · ¿es una persona real? · ¿hablo con una máquina? |
 * | fr   | arrêtez de m'appeler · ne m'appelez plus · retirez-moi de votre liste | mauvais numéro · faux numéro · mauvaise personne | êtes-vous un robot ? · c'est une vraie personne ? · je parle à une machine ? |
 * | de   | rufen Sie mich nicht mehr an · hören Sie auf, mich anzurufen · keine Anrufe mehr | falsche Nummer · falsch verbunden · falsche Person | sind Sie ein Roboter? · bist du ein Mensch? · spreche ich mit einer Maschine? |
 * | pt   | pare de me ligar · não me ligue mais · me tire da lista | número errado · pessoa errada · não mora aqui | você é um robô? · é uma pessoa de verdade? · estou falando com uma máquina? |
 * | it   | smettete di chiamarmi · non chiamatemi più · toglietemi dalla lista | numero sbagliato · persona sbagliata · non abita qui | sei un robot? · è una persona vera? · sto parlando con una macchina? |
 *
 * The full lists are PHRASES below; "don't stop, go on" and "is this a good number to call?"
 * match nothing.
 */

export type ComplianceKind = 'opt_out' | 'wrong_person' | 'robot';

export interface PhraseSet {
  opt_out: readonly string[];
  wrong_person: readonly string[];
  robot: readonly string[];
}

/** Spoken by the runtime itself, never by the model. */
export interface SpokenLines {
  opt_out_ack: string;
  wrong_person_ack: string;
  robot_answer: string;
  filler: string;
  tool_failed: string;
  model_failed_transfer: string;
  model_failed_end: string;
}

/** Phrases as they read AFTER normalisation (no accents, no apostrophes, no punctuation). */
export const PHRASES: Readonly<Record<string, PhraseSet>> = {
  en: {
    opt_out: [
      'stop calling',
      'stop calling me',
      'quit calling',
      'stop contacting me',
      'dont call me again',
      'do not call me again',
      'dont call me anymore',
      'do not call me anymore',
      'dont ever call me',
      'never call me again',
      'dont call this number',
      'do not call this number',
      'take me off your list',
      'take me off the list',
      'remove me from your list',
      'remove me from the list',
      'remove my number',
      'take my number off',
      'do not call list',
      'dont call list',
      'unsubscribe',
      'no more calls',
      'i dont want any more calls',
      'i do not want any more calls',
      'lose my number',
    ],
    wrong_person: [
      'wrong number',
      'wrong person',
      'you have the wrong',
      'youve got the wrong',
      'you got the wrong',
      'no one here by that name',
      'no one by that name',
      'nobody by that name',
      'nobody here by that name',
      'doesnt live here',
      'does not live here',
      'i dont know who that is',
      'i dont know that person',
    ],
    robot: [
      'are you a robot',
      'are you a bot',
      'are you a machine',
      'are you a computer',
      'are you a real person',
      'are you real',
      'are you human',
      'are you a human',
      'are you a person',
      'are you an ai',
      'are you ai',
      'are you an a i',
      'is this a robot',
      'is this a bot',
      'is this a machine',
      'is this a recording',
      'is this a real person',
      'is this an ai',
      'is this ai',
      'is this automated',
      'is this an automated',
      'am i talking to a robot',
      'am i talking to a machine',
      'am i talking to a computer',
      'am i talking to a bot',
      'am i talking to a real person',
      'am i talking to a person',
      'am i talking to a human',
      'am i speaking to a robot',
      'am i speaking to a machine',
      'am i speaking to a real person',
      'am i speaking to a human',
      'am i talking to an ai',
    ],
  },
  es: {
    opt_out: [
      'deje de llamar',
      'deje de llamarme',
      'dejen de llamar',
      'dejen de llamarme',
      'deja de llamar',
      'deja de llamarme',
      'no me llame mas',
      'no me llamen mas',
      'no me llames mas',
      'no vuelva a llamar',
      'no vuelvan a llamar',
      'no me vuelva a llamar',
      'no me vuelvan a llamar',
      'no me vuelvas a llamar',
      'quitenme de su lista',
      'quiteme de su lista',
      'borrenme de su lista',
      'saquenme de su lista',
      'borren mi numero',
      'no quiero que me llamen',
      'no quiero mas llamadas',
    ],
    wrong_person: [
      'numero equivocado',
      'se equivoco de numero',
      'se ha equivocado de numero',
      'se equivoco de persona',
      'persona equivocada',
      'aqui no vive',
      'no vive aqui',
      'no conozco a esa persona',
      'no hay nadie con ese nombre',
    ],
    robot: [
      'eres un robot',
      'es usted un robot',
      'es un robot',
      'eres una maquina',
      'es una maquina',
      'eres humano',
      'es usted humano',
      'eres una persona real',
      'es una persona real',
      'es usted una persona real',
      'eres real',
      'hablo con una maquina',
      'hablo con un robot',
      'hablo con una persona real',
      'estoy hablando con una maquina',
      'estoy hablando con un robot',
      'es una grabacion',
      'eres una ia',
      'es una ia',
      'eres una inteligencia artificial',
    ],
  },
  fr: {
    opt_out: [
      'arretez de mappeler',
      'arrete de mappeler',
      'cessez de mappeler',
      'ne mappelez plus',
      'ne me rappelez plus',
      'ne mappelle plus',
      'ne me rappelle plus',
      'ne plus mappeler',
      'retirez moi de votre liste',
      'retirez moi de la liste',
      'supprimez mon numero',
      'effacez mon numero',
      'je ne veux plus etre appele',
      'je ne veux plus etre appelee',
      'je ne veux plus de vos appels',
    ],
    wrong_person: [
      'mauvais numero',
      'faux numero',
      'erreur de numero',
      'mauvaise personne',
      'trompe de numero',
      'trompes de numero',
      'trompe de personne',
      'il ny a personne de ce nom',
      'personne de ce nom ici',
      'je ne connais pas cette personne',
      'nhabite pas ici',
    ],
    robot: [
      'etes vous un robot',
      'tu es un robot',
      'vous etes un robot',
      'est ce un robot',
      'cest un robot',
      'etes vous une machine',
      'cest une machine',
      'etes vous humain',
      'tu es humain',
      'etes vous une vraie personne',
      'est ce une vraie personne',
      'cest une vraie personne',
      'je parle a un robot',
      'je parle a une machine',
      'je parle a une vraie personne',
      'est ce un enregistrement',
      'etes vous une ia',
      'cest une ia',
      'etes vous une intelligence artificielle',
    ],
  },
  de: {
    opt_out: [
      'rufen sie mich nicht mehr an',
      'rufen sie nicht mehr an',
      'ruf mich nicht mehr an',
      'rufen sie mich nie wieder an',
      'horen sie auf mich anzurufen',
      'horen sie auf anzurufen',
      'hor auf mich anzurufen',
      'nicht mehr anrufen',
      'keine anrufe mehr',
      'streichen sie meine nummer',
      'loschen sie meine nummer',
      'nehmen sie mich von ihrer liste',
      'nehmen sie mich aus ihrer liste',
    ],
    wrong_person: [
      'falsche nummer',
      'verwahlt',
      'falsch verbunden',
      'falsche person',
      'wohnt hier nicht',
      'kenne diese person nicht',
      'niemand mit diesem namen',
    ],
    robot: [
      'sind sie ein roboter',
      'bist du ein roboter',
      'ist das ein roboter',
      'sind sie eine maschine',
      'bist du eine maschine',
      'ist das eine maschine',
      'sind sie ein mensch',
      'bist du ein mensch',
      'sind sie eine echte person',
      'ist das eine echte person',
      'spreche ich mit einem roboter',
      'spreche ich mit einer maschine',
      'spreche ich mit einem menschen',
      'spreche ich mit einer echten person',
      'ist das eine aufnahme',
      'sind sie eine ki',
      'bist du eine ki',
      'ist das eine ki',
    ],
  },
  pt: {
    opt_out: [
      'pare de me ligar',
      'parem de me ligar',
      'para de me ligar',
      'deixe de me ligar',
      'nao me ligue mais',
      'nao me liguem mais',
      'nao ligue mais',
      'nao liguem mais',
      'nao me ligue de novo',
      'nao quero mais ligacoes',
      'tire meu numero',
      'tirem meu numero',
      'remova meu numero',
      'me tire da lista',
      'me tirem da lista',
      'me tire da sua lista',
    ],
    wrong_person: [
      'numero errado',
      'pessoa errada',
      'ligou errado',
      'ligou para o numero errado',
      'nao mora aqui',
      'nao conheco essa pessoa',
      'ninguem com esse nome',
    ],
    robot: [
      'voce e um robo',
      'e um robo',
      'voce e uma maquina',
      'e uma maquina',
      'voce e humano',
      'voce e uma pessoa real',
      'e uma pessoa real',
      'e uma pessoa de verdade',
      'voce e real',
      'estou falando com um robo',
      'estou falando com uma maquina',
      'estou falando com uma pessoa',
      'e uma gravacao',
      'voce e uma ia',
      'voce e uma inteligencia artificial',
    ],
  },
  it: {
    opt_out: [
      'smettete di chiamarmi',
      'smetta di chiamarmi',
      'smettila di chiamarmi',
      'non chiamatemi piu',
      'non mi chiami piu',
      'non mi chiamate piu',
      'non chiamarmi piu',
      'toglietemi dalla lista',
      'mi tolga dalla lista',
      'cancellate il mio numero',
      'cancelli il mio numero',
      'non voglio piu essere chiamato',
      'non voglio piu essere chiamata',
      'non voglio piu chiamate',
    ],
    wrong_person: [
      'numero sbagliato',
      'persona sbagliata',
      'ha sbagliato numero',
      'avete sbagliato numero',
      'non abita qui',
      'non conosco questa persona',
      'nessuno con questo nome',
    ],
    robot: [
      'sei un robot',
      'e un robot',
      'lei e un robot',
      'sei una macchina',
      'e una macchina',
      'sei umano',
      'lei e umano',
      'sei una persona vera',
      'e una persona vera',
      'sei reale',
      'sto parlando con un robot',
      'sto parlando con una macchina',
      'sto parlando con una persona vera',
      'e una registrazione',
      'sei unintelligenza artificiale',
      'sei una ia',
      'e una ia',
    ],
  },
};

export const LINES: Readonly<Record<string, SpokenLines>> = {
  en: {
    opt_out_ack: "Understood. We won't call you again. Goodbye.",
    wrong_person_ack: "Sorry for the trouble. We won't call this number again. Goodbye.",
    robot_answer: "Yes, I'm an automated assistant, not a person. Shall we carry on?",
    filler: 'One moment, please.',
    tool_failed: "Sorry, I couldn't complete that just now.",
    model_failed_transfer: "I'm sorry, I'm having trouble right now. Let me pass you to a colleague.",
    model_failed_end: "I'm sorry, I'm having trouble right now. Someone will get back to you. Goodbye.",
  },
  es: {
    opt_out_ack: 'Entendido. No volveremos a llamarle. Adiós.',
    wrong_person_ack: 'Disculpe las molestias. No volveremos a llamar a este número. Adiós.',
    robot_answer: 'Sí, soy un asistente automatizado, no una persona. ¿Seguimos?',
    filler: 'Un momento, por favor.',
    tool_failed: 'Lo siento, no he podido hacerlo ahora mismo.',
    model_failed_transfer: 'Lo siento, ahora mismo tengo problemas. Le paso con un compañero.',
    model_failed_end: 'Lo siento, ahora mismo tengo problemas. Alguien se pondrá en contacto con usted. Adiós.',
  },
  fr: {
    opt_out_ack: "C'est noté. Nous ne vous rappellerons plus. Au revoir.",
    wrong_person_ack: "Désolé pour le dérangement. Nous n'appellerons plus ce numéro. Au revoir.",
    robot_answer: 'Oui, je suis un assistant automatisé, pas une personne. On continue ?',
    filler: "Un instant, s'il vous plaît.",
    tool_failed: "Désolé, je n'ai pas pu le faire pour le moment.",
    model_failed_transfer: 'Désolé, je rencontre un problème. Je vous passe un collègue.',
    model_failed_end: 'Désolé, je rencontre un problème. Quelqu’un vous recontactera. Au revoir.',
  },
  de: {
    opt_out_ack: 'Verstanden. Wir rufen Sie nicht mehr an. Auf Wiederhören.',
    wrong_person_ack: 'Entschuldigen Sie die Störung. Wir rufen diese Nummer nicht mehr an. Auf Wiederhören.',
    robot_answer: 'Ja, ich bin ein automatisierter Assistent, kein Mensch. Sollen wir weitermachen?',
    filler: 'Einen Moment, bitte.',
    tool_failed: 'Entschuldigung, das hat gerade nicht geklappt.',
    model_failed_transfer: 'Entschuldigung, ich habe gerade technische Probleme. Ich verbinde Sie mit einem Kollegen.',
    model_failed_end: 'Entschuldigung, ich habe gerade technische Probleme. Wir melden uns bei Ihnen. Auf Wiederhören.',
  },
  pt: {
    opt_out_ack: 'Entendido. Não voltaremos a ligar. Até logo.',
    wrong_person_ack: 'Desculpe o incômodo. Não ligaremos mais para este número. Até logo.',
    robot_answer: 'Sim, sou um assistente automatizado, não uma pessoa. Podemos continuar?',
    filler: 'Um momento, por favor.',
    tool_failed: 'Desculpe, não consegui fazer isso agora.',
    model_failed_transfer: 'Desculpe, estou com problemas agora. Vou transferir você para um colega.',
    model_failed_end: 'Desculpe, estou com problemas agora. Alguém entrará em contato. Até logo.',
  },
  it: {
    opt_out_ack: 'Capito. Non la chiameremo più. Arrivederci.',
    wrong_person_ack: 'Mi scusi per il disturbo. Non chiameremo più questo numero. Arrivederci.',
    robot_answer: 'Sì, sono un assistente automatico, non una persona. Continuiamo?',
    filler: 'Un momento, per favore.',
    tool_failed: 'Mi scusi, non sono riuscito a farlo in questo momento.',
    model_failed_transfer: 'Mi scusi, sto avendo dei problemi. La passo a un collega.',
    model_failed_end: 'Mi scusi, sto avendo dei problemi. La ricontatteremo. Arrivederci.',
  },
};

/** Lower case, accents stripped, apostrophes dropped, other punctuation → one space. */
export function normalizeUtterance(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/['’‘`´]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

const KINDS: readonly ComplianceKind[] = ['wrong_person', 'opt_out', 'robot'];

/** What a contact's utterance asks for that the runtime answers itself, or null. */
export function detectCompliance(text: string): { kind: ComplianceKind; language: string; phrase: string } | null {
  const padded = ` ${normalizeUtterance(text)} `;
  if (padded.trim() === '') return null;
  for (const kind of KINDS) {
    for (const [language, set] of Object.entries(PHRASES)) {
      const phrase = set[kind].find((p) => padded.includes(` ${p} `));
      if (phrase) return { kind, language, phrase };
    }
  }
  return null;
}

/** The line in the call's language (by primary subtag: es-MX → es), English when none. */
export function spokenLine(key: keyof SpokenLines, languageTag: string): string {
  const primary = languageTag.split(/[-_]/)[0]!.toLowerCase();
  return (LINES[primary] ?? LINES.en!)[key];
}
