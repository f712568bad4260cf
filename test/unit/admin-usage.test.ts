import { describe, expect, it } from 'vitest';
import { adminCommands, unknownCommandText, usageText } from '../../shared/admin/usage.js';

const commands = adminCommands(['deletions', 'invoices']);

describe('operator CLI usage', () => {
  it('the whole usage lists every command; one command shows only its lines', () => {
    const all = usageText(commands);
    for (const name of Object.keys(commands)) expect(all).toContain(`admin ${name}`);
    expect(all).toContain('NAME: deletions, invoices');
    const sandbox = usageText(commands, 'sandbox');
    expect(sandbox).toContain('admin sandbox clock');
    expect(sandbox).not.toContain('admin tenant create');
    expect(sandbox).toContain('LOCAL_DIR');
  });

  it('an unknown command is named and the commands are listed, on one line', () => {
    const text = unknownCommandText(commands, 'tenants');
    expect(text).toMatch(/^unknown command "tenants": the commands are demo, tenant, user/);
    expect(text.split('\n')).toHaveLength(1);
  });
});
