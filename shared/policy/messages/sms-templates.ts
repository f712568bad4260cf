/**
 * Message templates (POST /v1/messages `template_id` + `variables`): a small platform
 * catalog, like the agent templates but for texts. A template names its variables; each is
 * required, a plain string of at most 200 characters, and none may be left unfilled or
 * invented. Rendering is `{{name}}` substitution, nothing else (no markup, no logic). Pure.
 */
export interface MessageTemplate {
  id: string;
  description: string;
  body: string;
  variables: readonly string[];
}

export const MESSAGE_TEMPLATES: readonly MessageTemplate[] = [
  {
    id: 'smt_appointment_reminder',
    description: 'A reminder of an appointment',
    body: 'Hi {{first_name}}, a reminder of your appointment with {{business_name}} on {{when}}. Reply STOP to opt out.',
    variables: ['first_name', 'business_name', 'when'],
  },
  {
    id: 'smt_callback_confirmation',
    description: 'Confirms a callback the contact asked for',
    body: '{{business_name}}: we will call you back {{when}}. Reply STOP to opt out.',
    variables: ['business_name', 'when'],
  },
  {
    id: 'smt_booking_link',
    description: 'A link to book a time',
    body: '{{business_name}}: book a time that suits you at {{link}}. Reply STOP to opt out.',
    variables: ['business_name', 'link'],
  },
];

export const MAX_VARIABLE_CHARS = 200;

export const messageTemplate = (id: string): MessageTemplate | undefined => MESSAGE_TEMPLATES.find((t) => t.id === id);

export type RenderProblem = { variable: string; problem: 'missing' | 'unknown' };

/** The rendered body, or what is wrong with the variables. */
export function renderTemplate(t: MessageTemplate, variables: Readonly<Record<string, string>>): { body: string } | { problems: RenderProblem[] } {
  const problems: RenderProblem[] = [
    ...t.variables.filter((v) => variables[v] === undefined).map((variable) => ({ variable, problem: 'missing' as const })),
    ...Object.keys(variables)
      .filter((v) => !t.variables.includes(v))
      .map((variable) => ({ variable, problem: 'unknown' as const })),
  ];
  if (problems.length > 0) return { problems };
  return { body: t.body.replace(/\{\{(\w+)\}\}/g, (_, name: string) => variables[name]!) };
}
