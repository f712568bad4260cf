import { describe, expect, it } from 'vitest';
import { seededDialoguePolicy, seededVoicemailDrop } from '../../shared/agents/template-seed.js';
import { voicemailParts } from '../../shared/telephony/outbound-answer.js';
import { dialoguePolicyFor } from '../../shared/voice/prompt.js';

describe('what a template seeds on a new agent', () => {
  it("a dialogue policy per supported language the runtime speaks, under the agent's own tags; none for a language it does not", () => {
    const policy = seededDialoguePolicy(['en-US', 'es-419', 'de-DE', 'pt-BR', 'it-IT', 'fr-FR', 'ja-JP']);
    expect(Object.keys(policy)).toEqual(['en-US', 'es-419', 'de-DE', 'pt-BR', 'it-IT', 'fr-FR']);
    expect(policy['de-DE']).toMatchObject({ speak: expect.stringMatching(/^German \(de-DE\)/), register: expect.stringMatching(/Sie/) });
  });

  it("the runtime's prompt finds the seeded policy for the language being spoken", () => {
    const definition = {
      dialogue_policy: seededDialoguePolicy(['en-US', 'es-MX']),
      conversation_settings: { default_language: 'en-US', supported_languages: ['en-US', 'es-MX'], allow_language_switch: true },
    };
    expect(dialoguePolicyFor({ definition } as never, 'es-MX')).toMatchObject({ language: 'es-MX', policy: { register: expect.stringMatching(/usted/) } });
    expect(dialoguePolicyFor({ definition } as never, 'es')).toMatchObject({ language: 'es-MX' });
  });

  it("a voicemail body per language with the disclosure's callback number, which the voicemail speaks; no number, no drop", () => {
    const drop = seededVoicemailDrop(['fr-FR', 'en-US'], { business_name: 'Acme', callback_number: '+14155550100' });
    expect(drop).toEqual({
      body: { 'fr-FR': expect.stringMatching(/message/), 'en-US': 'We were calling with a message for you.' },
      callback_number: '+14155550100',
    });
    const parts = voicemailParts({
      disclosure_config: { business_name: 'Acme' },
      voicemail_drop: drop,
      conversation_settings: { default_language: 'fr-FR', supported_languages: ['fr-FR', 'en-US'], allow_language_switch: false },
    } as never);
    expect(parts.body).toBe(drop!.body['fr-FR']);
    expect(parts.closing).toMatch(/call Acme back/);
    expect(seededVoicemailDrop(['en-US'], { business_name: 'Acme' })).toBeNull();
    expect(seededVoicemailDrop(['en-US'], { business_name: 'Acme', callback_number: '555-0100' })).toBeNull();
    expect(seededVoicemailDrop(['ja-JP'], { business_name: 'Acme', callback_number: '+14155550100' })).toBeNull();
  });
});
