/**
 * What a send_sms action's arguments ask to text, pure: `{body}` or `{template_id, variables}`.
 * The runtime events route refuses an action whose arguments this refuses (422), and the voice
 * runtime checks its own send_sms tool call with it before reporting, so both read the same rule.
 */
import type { ValidationIssue } from '../errors.js';
import { messageTemplate, renderTemplate } from '../policy/messages/sms-templates.js';
import { MAX_BODY_CHARS } from '../schemas/text-messages.js';

/** The text an action asks for, or what is wrong with its arguments (loc relative to the event). */
export function smsActionText(
  args: Record<string, unknown>,
): { body: string; templateId: string | null } | { issue: Omit<ValidationIssue, 'loc'> & { loc: (string | number)[] } } {
  const bad = (loc: string[], msg: string, type = 'value_error') => ({ issue: { loc: ['arguments', ...loc], msg, type } });
  if (typeof args.template_id === 'string') {
    const t = messageTemplate(args.template_id);
    if (!t) return bad(['template_id'], 'No such message template');
    const vars = args.variables ?? {};
    if (typeof vars !== 'object' || vars === null || Object.values(vars).some((v) => typeof v !== 'string')) return bad(['variables'], 'An object of strings');
    const rendered = renderTemplate(t, vars as Record<string, string>);
    if ('problems' in rendered)
      return bad(
        ['variables', rendered.problems[0]!.variable],
        rendered.problems[0]!.problem === 'missing' ? 'Field required by the template' : 'The template has no such variable',
        rendered.problems[0]!.problem === 'missing' ? 'missing' : 'extra_forbidden',
      );
    return { body: rendered.body, templateId: t.id };
  }
  const body = typeof args.body === 'string' ? args.body.trim() : '';
  if (!body) return bad(['body'], 'send_sms needs a body (or a template_id with its variables)', 'missing');
  if (body.length > MAX_BODY_CHARS) return bad(['body'], `At most ${MAX_BODY_CHARS} characters`, 'string_too_long');
  return { body, templateId: null };
}
