/**
 * Operator actions for National DNC snapshots (platform data, no tenant route): load an
 * area code's registry download, list what is loaded. Every line of a file is checked
 * before anything is written.
 */
import { readFile } from 'node:fs/promises';
import { now } from '../clock.js';
import { asOfProblem, DncFileProblem, parseDncFile } from '../policy/dnc/snapshot-file.js';
import { dncStatus, replaceDncSnapshot } from '../repositories/dnc-snapshots.js';
import { OperatorError } from './bootstrap.js';

export async function loadDncAction(input: { areaCode: string; asOf: string; file: string; today?: Date }) {
  const dateProblem = asOfProblem(input.asOf, input.today ?? new Date());
  if (dateProblem) throw new OperatorError(dateProblem);
  let text: string;
  try {
    text = await readFile(input.file, 'utf8');
  } catch (err) {
    throw new OperatorError(`cannot read ${input.file}: ${(err as Error).message}`);
  }
  let parsed: ReturnType<typeof parseDncFile>;
  try {
    parsed = parseDncFile(text, input.areaCode);
  } catch (err) {
    if (err instanceof DncFileProblem) throw new OperatorError(err.message);
    throw err;
  }
  const pointer = await replaceDncSnapshot(input.areaCode, input.asOf, parsed, now());
  return { area_code: pointer.area_code, as_of: pointer.as_of, numbers: pointer.numbers };
}

export async function dncStatusAction() {
  const loaded = await dncStatus();
  return { area_codes: loaded.map(({ area_code, as_of, numbers, loaded_at }) => ({ area_code, as_of, numbers, loaded_at })) };
}
