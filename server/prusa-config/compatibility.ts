// Whether a print or filament preset suits a printer, as PrusaSlicer's preset lists decide it.
import type { Flattener, PresetKind } from './bundle.ts';
import { ConditionError, evaluateCondition, type Node, parseCondition } from './conditions.ts';
import { splitStrings } from './ini.ts';

/**
 * PrusaSlicer's compatibility of a print or filament with a printer: a non-empty `compatible_printers` list names
 * it; else a non-empty `compatible_printers_condition` holds for the printer's options (and `num_extruders`);
 * else it suits every printer. A condition this reader cannot evaluate counts as incompatible and is remembered.
 */
interface Rule {
  listed: Set<string> | null;
  condition: string;
}

export class Compatibility {
  readonly unsupported = new Set<string>();
  /** Per preset: the printers it names, or its condition's text. */
  private readonly rules = new Map<string, Rule>();
  /** The rules of a list of names, worked out once for all the printers. */
  private readonly ruleLists = new WeakMap<string[], Rule[]>();
  private readonly conditions = new Map<string, Node | null | ConditionError>();
  /** Per printer and condition text: the verdict, null when it cannot be judged. Presets share conditions. */
  private readonly verdicts = new Map<string, Map<string, boolean | null>>();

  constructor(private readonly flattener: Flattener) {}

  /** The presets of `names` compatible with the printer, in their order. */
  compatibleOf(kind: PresetKind, names: string[], printer: string): string[] {
    let rules = this.ruleLists.get(names);
    if (!rules) {
      rules = names.map((name) => this.ruleOf(kind, name));
      this.ruleLists.set(names, rules);
    }
    let verdicts = this.verdicts.get(printer);
    if (!verdicts) {
      verdicts = new Map();
      this.verdicts.set(printer, verdicts);
    }
    return names.filter((name, i) => {
      const rule = rules[i]!;
      if (rule.listed) return rule.listed.has(printer);
      let verdict = verdicts.get(rule.condition);
      if (verdict === undefined) {
        verdict = this.evaluate(rule.condition, printer);
        verdicts.set(rule.condition, verdict);
      }
      if (verdict === null) this.unsupported.add(`${kind}:${name}`);
      return verdict === true;
    });
  }

  private ruleOf(kind: PresetKind, preset: string) {
    const key = `${kind}:${preset}`;
    let rule = this.rules.get(key);
    if (!rule) {
      const listed = splitStrings(this.flattener.option(kind, preset, 'compatible_printers') ?? '') ?? [];
      const condition = this.flattener.option(kind, preset, 'compatible_printers_condition') ?? '';
      rule = { listed: listed.length > 0 ? new Set(listed) : null, condition };
      this.rules.set(key, rule);
    }
    return rule;
  }

  private evaluate(condition: string, printer: string): boolean | null {
    const node = this.parsed(condition);
    if (node === null) return true;
    if (node instanceof ConditionError) return null;
    try {
      return evaluateCondition(node, this.optionsOf(printer));
    } catch (err) {
      if (!(err instanceof ConditionError)) throw err;
      return null;
    }
  }

  private parsed(text: string): Node | null | ConditionError {
    let node = this.conditions.get(text);
    if (node === undefined) {
      try {
        node = parseCondition(text);
      } catch (err) {
        if (!(err instanceof ConditionError)) throw err;
        node = err;
      }
      this.conditions.set(text, node);
    }
    return node;
  }

  private readonly printerOptions = new Map<string, Record<string, string>>();

  private optionsOf(printer: string): Record<string, string> {
    let options = this.printerOptions.get(printer);
    if (!options) {
      options = { ...this.flattener.flat('printer', printer).options };
      // PrusaSlicer adds the extruder count, read from the nozzle list, for the conditions.
      options.num_extruders ??= String((options.nozzle_diameter ?? '0.4').split(',').length);
      this.printerOptions.set(printer, options);
    }
    return options;
  }
}
