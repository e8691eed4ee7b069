// EMVCo TLV: 2-digit tag, 2-digit decimal length, value. Lengths count JS string characters.
import { AppError } from '../errors.js';

export interface TlvField {
  tag: string;
  /** The raw value text, also for templates (so callers can keep it byte for byte). */
  value: string;
  children?: TlvField[];
}

/** Top-level tags whose value is itself TLV. Only the top level has templates in EMVCo MPM. */
function isTemplateTag(tag: string): boolean {
  const n = Number(tag);
  return (n >= 26 && n <= 51) || n === 62 || n === 64 || (n >= 80 && n <= 99);
}

const TWO_DIGITS = /^[0-9]{2}$/;

function fail(message: string): never {
  throw new AppError('invalid_qris', message);
}

function parseLevel(text: string, base: number, topLevel: boolean): TlvField[] {
  const fields: TlvField[] = [];
  let i = 0;
  while (i < text.length) {
    const tag = text.slice(i, i + 2);
    if (!TWO_DIGITS.test(tag)) {
      fail(`bad tag at position ${base + i}: expected 2 digits, found ${JSON.stringify(tag)}`);
    }
    const lenText = text.slice(i + 2, i + 4);
    if (!TWO_DIGITS.test(lenText)) {
      fail(
        `bad length at position ${base + i + 2}: field ${tag} has length ${JSON.stringify(lenText)}, expected 2 digits`,
      );
    }
    const length = Number(lenText);
    if (length === 0) fail(`bad length at position ${base + i + 2}: field ${tag} has length 00`);
    const start = i + 4;
    const remaining = text.length - start;
    if (length > remaining) {
      fail(
        `bad length at position ${base + i + 2}: field ${tag} declares ${length} characters but only ${remaining} remain`,
      );
    }
    const value = text.slice(start, start + length);
    const field: TlvField = { tag, value };
    if (topLevel && isTemplateTag(tag)) {
      try {
        field.children = parseLevel(value, base + start, false);
      } catch (err) {
        if (err instanceof AppError) fail(`${err.message} (inside template ${tag})`);
        throw err;
      }
    }
    fields.push(field);
    i = start + length;
  }
  return fields;
}

/**
 * Parses a TLV string; templates (26-51, 62, 64, 80-99) get `children`. Error positions are offsets in
 * the whole payload: pass `basePosition` when `text` is a slice of it.
 */
export function parseTlv(text: string, basePosition = 0): TlvField[] {
  return parseLevel(text, basePosition, true);
}

export function encodeField(tag: string, value: string): string {
  if (!TWO_DIGITS.test(tag)) fail(`cannot encode tag ${JSON.stringify(tag)}: expected 2 digits`);
  if (value.length < 1 || value.length > 99) {
    fail(`cannot encode field ${tag}: value has ${value.length} characters, allowed 1-99`);
  }
  return tag + String(value.length).padStart(2, '0') + value;
}

export function encodeTlv(fields: TlvField[]): string {
  return fields.map((f) => encodeField(f.tag, f.children ? encodeTlv(f.children) : f.value)).join('');
}
