// Parts too thin for the printer (docs/placement.md, "Thin walls and tiny parts"), from the measurements kept with
// the file, before any slicing. A part whose thinnest side is under one layer cannot print at all with those
// options: it is refused with the reason (`feature_too_small`). A part whose walls are on average thinner than
// the nozzle prints weak or loses them: it is priced with a `thin_walls` warning.
//
// The average wall is 2 × volume / surface: exact for a plate or a thin shell (both faces count in the surface),
// a third of the side for a cube; so a solid part never warns and a thin-walled one does.
export interface ThinWallsWarning {
  code: 'thin_walls';
  message: string;
  /** 2 × volume / surface as printed, mm. */
  average_wall_mm: number;
  nozzle_mm: number;
}

export interface TooSmallRefusal {
  code: 'feature_too_small';
  message: string;
  status: 422;
  details: { thinnest_mm: number; layer_height_mm: number };
}

const mm = (v: number) => `${+v.toFixed(3)} mm`;

interface Printed {
  size: [number, number, number];
  volume_mm3: number;
  surface_area_mm2: number;
}

/** The printed measurements (scaledMeasurements) against the nozzle and the layer height of the options chosen. */
export function checkFeatures(
  m: Printed,
  printer: { nozzle_diameter: number; layer_height: number },
): { refusal: TooSmallRefusal | null; warning: ThinWallsWarning | null } {
  const thinnest = Math.min(...m.size);
  if (thinnest < printer.layer_height)
    return {
      warning: null,
      refusal: {
        code: 'feature_too_small',
        status: 422,
        message: `The part is ${mm(thinnest)} thick at its thinnest side, less than one layer (${mm(printer.layer_height)}): it cannot be printed at this size. Scale it up or check its unit.`,
        details: { thinnest_mm: +thinnest.toFixed(4), layer_height_mm: printer.layer_height },
      },
    };
  const wall = (2 * m.volume_mm3) / m.surface_area_mm2;
  // A file measured before volume and surface were kept (or an empty surface) tells nothing about its walls.
  if (!Number.isFinite(wall) || wall >= printer.nozzle_diameter) return { refusal: null, warning: null };
  return {
    refusal: null,
    warning: {
      code: 'thin_walls',
      message: `Its walls are about ${mm(wall)} thick on average, thinner than the ${mm(printer.nozzle_diameter)} nozzle: thin parts may print weak or not at all.`,
      average_wall_mm: +wall.toFixed(4),
      nozzle_mm: printer.nozzle_diameter,
    },
  };
}
