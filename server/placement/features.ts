// Parts too thin for the printer (docs/placement.md, "Thin walls and tiny parts"), from the measurements kept with
// the file, before any slicing. A part whose thinnest side is under one layer cannot print at all with those
// options: it is refused with the reason (`feature_too_small`). A speck — a part narrower in two directions than
// the one loop of perimeters the nozzle draws around a shape — prints as a blob, if at all: it is refused too
// (`part_too_small`), so no automatic price sells it and the shopper may ask the shop instead. A part whose walls
// are on average thinner than the nozzle prints weak or loses them: it is priced with a `thin_walls` warning.
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

export type TooSmallRefusal =
  | {
      code: 'feature_too_small';
      message: string;
      status: 422;
      details: { thinnest_mm: number; layer_height_mm: number };
    }
  | {
      code: 'part_too_small';
      message: string;
      status: 422;
      /** The part's two smaller sides as printed, the nozzle, and the least width both must reach. */
      details: { across_mm: [number, number]; nozzle_mm: number; smallest_mm: number };
    };

/**
 * PrusaSlicer's automatic extrusion width is 1.125 × the nozzle; a closed loop around a shape takes two of them. A
 * part narrower than that in two directions has no inside to draw: at a 0.4 mm nozzle, under 0.9 mm.
 */
export const SPECK_NOZZLES = 2 * 1.125;

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
  const [a, b] = [...m.size].sort((x, y) => x - y) as [number, number, number];
  const smallest = +(SPECK_NOZZLES * printer.nozzle_diameter).toFixed(3);
  if (b < smallest)
    return {
      warning: null,
      refusal: {
        code: 'part_too_small',
        status: 422,
        message: `The part is ${mm(a)} × ${mm(b)} across, too small for the ${mm(printer.nozzle_diameter)} nozzle to draw its shape (it needs ${mm(smallest)} in two directions). Scale it up or check its unit.`,
        details: {
          across_mm: [+a.toFixed(4), +b.toFixed(4)],
          nozzle_mm: printer.nozzle_diameter,
          smallest_mm: smallest,
        },
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
