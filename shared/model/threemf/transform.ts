// 3MF affine transforms: 12 numbers "m00 m01 m02 m10 m11 m12 m20 m21 m22 m30 m31 m32", applied
// to row vectors: [x y z 1] · M, so (m30 m31 m32) is the translation.
import { ruleViolation } from '../errors.ts';
import { parseNumberString } from '../number.ts';

export type Transform = Float64Array; // length 12

export const IDENTITY: Transform = Float64Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0);

export function parseTransform(value: string, where: string): Transform {
  const parts = value.trim().split(/\s+/);
  const m = new Float64Array(12);
  if (parts.length !== 12) {
    ruleViolation(
      'Chapter 3.3',
      `The transform of ${where} has ${parts.length} numbers; a 3MF transform has exactly 12`,
    );
  }
  for (let i = 0; i < 12; i++) {
    const part = parts[i]!; // exactly 12 parts, checked above
    const v = parseNumberString(part);
    if (v === null || !Number.isFinite(v))
      ruleViolation(
        'Chapter 3.3',
        `The transform of ${where} contains "${part.slice(0, 32)}", which is not a finite number`,
      );
    m[i] = v;
  }
  return m;
}

/** a then b: applying the result equals applying a, then b. */
export function compose(a: Transform, b: Transform): Transform {
  const r = new Float64Array(12);
  for (let row = 0; row < 4; row++) {
    for (let col = 0; col < 3; col++) {
      let sum = row === 3 ? b[9 + col]! : 0;
      for (let k = 0; k < 3; k++) sum += a[row * 3 + k]! * b[k * 3 + col]!;
      r[row * 3 + col] = sum;
    }
  }
  return r;
}

/** Same transform with its translation multiplied by `scale` (unit conversion of a part's transform). */
export function scaleTranslation(m: Transform, scale: number): Transform {
  if (scale === 1) return m;
  const r = Float64Array.from(m);
  r[9]! *= scale;
  r[10]! *= scale;
  r[11]! *= scale;
  return r;
}

export function determinant(m: Transform): number {
  return (
    m[0]! * (m[4]! * m[8]! - m[5]! * m[7]!) -
    m[1]! * (m[3]! * m[8]! - m[5]! * m[6]!) +
    m[2]! * (m[3]! * m[7]! - m[4]! * m[6]!)
  );
}

export function isIdentity(m: Transform): boolean {
  for (let i = 0; i < 12; i++) if (m[i] !== IDENTITY[i]) return false;
  return true;
}
