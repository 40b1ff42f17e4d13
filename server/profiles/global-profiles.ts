// Profiles that ship with the product (account_id NULL): a generic printer, common materials with real
// densities, temperatures and street prices, and global quote settings; every amount is in USD, their currency.
// Re-applied on every start so upgrades reach them; merchants override them with their own profiles, never by
// editing these.
import { DEFAULT_SETTINGS } from '../../shared/settings.ts';

export interface SeedProfile {
  id: string;
  kind: 'printer' | 'material' | 'global';
  name: string;
  is_default: boolean;
  settings: Record<string, unknown>;
}

const material = (
  name: string,
  density: number,
  temps: [number, number, number],
  bed: [number, number, number],
  fan: [number, number],
  retraction: [number, number],
  pricePerKg: number,
  colors: string[],
): SeedProfile => ({
  id: `prof_global_${name.toLowerCase()}`,
  kind: 'material',
  name,
  is_default: name === 'PLA',
  settings: {
    filament_type: name,
    density,
    diameter: 1.75,
    temperature: temps[0],
    print_temp_min: temps[1],
    print_temp_max: temps[2],
    bed_temperature: bed[0],
    bed_temp_min: bed[1],
    bed_temp_max: bed[2],
    fan_speed: fan[0],
    min_fan_speed: fan[1],
    retraction_distance: retraction[0],
    retraction_speed: retraction[1],
    price_per_kg: pricePerKg, // price_per_gram is the same setting (docs/pricing.md): one price, per kg
    support_cost_multiplier: 1,
    color: colors[0],
    colors,
  },
});

export const GLOBAL_PROFILES: SeedProfile[] = [
  {
    id: 'prof_global_printer',
    kind: 'printer',
    name: 'Generic 0.4 mm FDM printer',
    is_default: true,
    settings: { ...DEFAULT_SETTINGS.printer },
  },
  //        name     g/cm³  temp [print, min, max]  bed [temp, min, max]  fan [max, min]  retract [mm, mm/s]  price/kg
  material('PLA', 1.24, [210, 190, 230], [60, 45, 70], [100, 35], [0.8, 35], 25, [
    'White',
    'Black',
    'Grey',
    'Red',
    'Blue',
  ]),
  material('PETG', 1.27, [240, 220, 250], [80, 70, 90], [50, 20], [1.0, 35], 28, ['Clear', 'Black', 'White', 'Orange']),
  material('ABS', 1.04, [250, 230, 260], [100, 90, 110], [15, 0], [0.8, 35], 25, ['Black', 'White', 'Grey']),
  material('ASA', 1.07, [260, 240, 270], [105, 90, 110], [15, 0], [0.8, 35], 35, ['Black', 'White', 'Grey']),
  material('TPU', 1.21, [230, 210, 240], [50, 30, 60], [50, 30], [0.4, 20], 40, ['Black', 'Clear', 'Red']),
  material('Nylon', 1.14, [260, 240, 280], [80, 70, 100], [0, 0], [1.0, 35], 60, ['Natural', 'Black']),
  {
    id: 'prof_global_settings',
    kind: 'global',
    name: 'Global settings',
    is_default: true,
    settings: { ...DEFAULT_SETTINGS.quote },
  },
];
