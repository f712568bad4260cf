/**
 * The operator CLI's usage text, per command (pure): `admin --help` prints all of it,
 * `admin <command> --help` its own lines, an unknown command the list of commands.
 */
export interface CommandUsage {
  /** The verbs the command takes ('' = none). */
  readonly verbs: readonly string[];
  readonly lines: readonly string[];
}

export function adminCommands(jobNames: readonly string[]): Readonly<Record<string, CommandUsage>> {
  return {
    demo: {
      verbs: [''],
      lines: ['admin demo                               (a demo tenant end to end on the local stack: one sandbox call, its transcript and webhook)'],
    },
    tenant: { verbs: ['create'], lines: ['admin tenant create --name NAME --admin-email EMAIL [--admin-name NAME]'] },
    user: {
      verbs: ['create', 'set-password', 'verify-email'],
      lines: [
        'admin user create --tenant TENANT_ID --email EMAIL [--role admin|manager|member (default member)] [--name NAME]',
        'admin user set-password --tenant TENANT_ID --user USER_ID   (the password is read from stdin)',
        'admin user verify-email --tenant TENANT_ID --user USER_ID',
      ],
    },
    'api-key': { verbs: ['create'], lines: ['admin api-key create --tenant TENANT_ID --name NAME [--role admin|manager|member (default member)]'] },
    rep: {
      verbs: ['create', 'disable', 'enable'],
      lines: [
        'admin rep create --tenant TENANT_ID --name NAME [--transfer-number E164] [--disabled]',
        'admin rep disable|enable --tenant TENANT_ID --rep REP_ID',
      ],
    },
    seed: { verbs: [''], lines: ['admin seed                               (platform data + templates, idempotent; deploys seed by themselves)'] },
    sandbox: {
      verbs: ['credentials', 'call', 'sms', 'clock', 'invoice-event'],
      lines: [
        'admin sandbox credentials [--status active|suspended|closed]   (a sandbox carrier account for byo twilio)',
        'admin sandbox call --to E164 --from E164 [--digits 1,2,…] [--no-answer] [--script enquiry|booking]',
        '                                         (an inbound call through the sandbox carrier; an agent that answers hears the',
        "                                          script's caller — booking: asks for an appointment; the conversation is printed",
        '                                          to stderr as it happens, agent / contact lines with times; then its path)',
        'admin sandbox sms --from E164 --to E164 --body TEXT   (an inbound text through the sandbox carrier; prints what the platform answered, and the texts sent and received on stderr)',
        'admin sandbox clock [--advance-to DATE-TIME]   (the local stack only: read, or move forward, the sandbox clock every time rule uses)',
        'admin sandbox invoice-event --tenant TENANT_ID --invoice INVOICE_ID --type invoice.paid|invoice.voided|invoice.marked_uncollectible',
      ],
    },
    dnc: {
      verbs: ['load', 'status'],
      lines: ['admin dnc load --area-code NPA --as-of YYYY-MM-DD --file FILE   (National DNC download: one ten-digit number per line)', 'admin dnc status'],
    },
    mail: { verbs: ['last'], lines: ['admin mail last --to EMAIL                (the local mail sink)'] },
    plan: { verbs: ['list', 'assign'], lines: ['admin plan list', 'admin plan assign --tenant TENANT_ID --plan PLAN_ID'] },
    budget: { verbs: ['set'], lines: ['admin budget set --tenant TENANT_ID --daily-minor N|none'] },
    subscription: { verbs: ['cancel'], lines: ['admin subscription cancel --tenant TENANT_ID   (no invoices for periods after the one it ends in)'] },
    jobs: { verbs: ['run'], lines: [`admin jobs run NAME --at DATE-TIME        (local runtime only; NAME: ${jobNames.join(', ')})`] },
  };
}

const OPTIONS_LINE =
  'options: [--table TABLE --secret-id ARN --region REGION --kms-key-id KEY] (AWS) | [--local-dir DIR] (local; default $LOCAL_DIR or .local)';

/** The whole usage, or one command's. */
export function usageText(commands: Readonly<Record<string, CommandUsage>>, command?: string): string {
  const picked = command ? [commands[command]!] : Object.values(commands);
  return ['usage:', ...picked.flatMap((c) => c.lines.map((l) => `  ${l}`)), OPTIONS_LINE].join('\n');
}

/** What an unknown command hears. */
export function unknownCommandText(commands: Readonly<Record<string, CommandUsage>>, given: string): string {
  return `unknown command "${given}": the commands are ${Object.keys(commands).join(', ')} (admin --help for their usage)`;
}
