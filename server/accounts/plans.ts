// Plans live in one config file (plans.json); validated when loaded so a typo stops start-up.
import { readFileSync } from 'node:fs';

import type { EndpointClass, Plan, Plans } from '../config.ts';

export type { EndpointClass, Plan, Plans, RateLimit } from '../config.ts';

const CLASSES: EndpointClass[] = ['quote', 'upload', 'read', 'write'];
const positive = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v > 0;

export function loadPlans(file = new URL('../plans.json', import.meta.url)): Plans {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const plans: Record<string, Plan> = {};
  for (const [id, value] of Object.entries(raw)) {
    if (id.startsWith('$')) continue;
    const p = value as Omit<Plan, 'id'>;
    const where = `plans.json: plan "${id}"`;
    if (typeof p.label !== 'string') throw new Error(`${where} needs a label`);
    if (!positive(p.monthly_quotes)) throw new Error(`${where}: monthly_quotes must be a positive integer`);
    if (!positive(p.storage_bytes)) throw new Error(`${where}: storage_bytes must be a positive integer`);
    for (const c of CLASSES) {
      const rl = p.rate_limits?.[c];
      if (!rl || !positive(rl.limit) || !positive(rl.window_seconds))
        throw new Error(`${where}: rate_limits.${c} needs a positive limit and window_seconds`);
    }
    plans[id] = { id, ...p };
  }
  for (const required of ['free', 'pro', 'business'])
    if (!plans[required]) throw new Error(`plans.json must define the "${required}" plan`);
  return plans as Plans; // the loop above checked the required plans
}
