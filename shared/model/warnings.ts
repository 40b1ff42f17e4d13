// Upload warnings: what a shop and its shopper should know about a model that is still quoted. Each has a
// stable snake_case `code` for programs, a sentence for people, and the figures behind it as details.

export type ModelWarningCode =
  | 'degenerate_triangles_removed'
  | 'not_watertight'
  | 'several_bodies'
  | 'metadata_repeated'
  | 'volume_ignored'
  | 'negative_volume_subtracted'
  | 'settings_ignored'
  | 'missing_thumbnail'
  | 'multi_material';

export interface ModelWarning {
  code: ModelWarningCode;
  message: string;
  [detail: string]: unknown;
}

export function modelWarning(
  code: ModelWarningCode,
  message: string,
  details: Record<string, unknown> = {},
): ModelWarning {
  return { code, message, ...details };
}

/** Collects warnings, keeping the first of any with the same code and details. */
export class WarningList {
  private readonly byKey = new Map<string, ModelWarning>();

  add(warning: ModelWarning): void {
    const { message: _message, ...identity } = warning;
    const key = JSON.stringify(identity);
    if (!this.byKey.has(key)) this.byKey.set(key, warning);
  }

  addAll(warnings: Iterable<ModelWarning>): void {
    for (const w of warnings) this.add(w);
  }

  toArray(): ModelWarning[] {
    return [...this.byKey.values()];
  }
}
