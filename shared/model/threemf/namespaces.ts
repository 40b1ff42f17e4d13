// XML namespaces a 3MF model part may use, and what we do with each.

export const NS_CORE = 'http://schemas.microsoft.com/3dmanufacturing/core/2015/02';
export const NS_MATERIAL = 'http://schemas.microsoft.com/3dmanufacturing/material/2015/02';
export const NS_PRODUCTION = 'http://schemas.microsoft.com/3dmanufacturing/production/2015/06';
export const NS_XML = 'http://www.w3.org/XML/1998/namespace';
export const NS_XMLNS = 'http://www.w3.org/2000/xmlns/';
export const NS_XSI = 'http://www.w3.org/2001/XMLSchema-instance';
export const NS_MC = 'http://schemas.openxmlformats.org/markup-compatibility/2006';

const NS_TRIANGLESETS = 'http://schemas.microsoft.com/3dmanufacturing/trianglesets/2021/07';

/**
 * Extensions whose data we can ignore without misreading the geometry: materials and colours
 * (we measure shape only), production (p:path is resolved), triangle sets (grouping only).
 * A file may list these in requiredextensions.
 */
export const SUPPORTED_REQUIRED = new Set([NS_CORE, NS_MATERIAL, NS_PRODUCTION, NS_TRIANGLESETS]);

/**
 * Namespaces we recognise. Official extensions not in SUPPORTED_REQUIRED change the geometry
 * (slices, beams, encryption, volumetric, boolean): their elements are skipped when optional
 * and the file is refused when they are required. Slicer vendor namespaces carry settings,
 * paint data and the like, never geometry, so they count as understood and are ignored.
 */
export const KNOWN_NAMESPACES = new Set([
  ...SUPPORTED_REQUIRED,
  'http://schemas.microsoft.com/3dmanufacturing/slice/2015/07',
  'http://schemas.microsoft.com/3dmanufacturing/beamlattice/2017/02',
  'http://schemas.microsoft.com/3dmanufacturing/beamlattice/balls/2020/07',
  'http://schemas.microsoft.com/3dmanufacturing/securecontent/2019/04',
  'http://schemas.microsoft.com/3dmanufacturing/securecontent/2019/07',
  'http://schemas.3mf.io/3dmanufacturing/volumetric/2022/01',
  'http://schemas.3mf.io/3dmanufacturing/implicit/2023/12',
  'http://schemas.microsoft.com/3dmanufacturing/displacement/2022/07',
  'http://schemas.3mf.io/3dmanufacturing/displacement/2023/10',
  'http://schemas.3mf.io/3dmanufacturing/booleanoperations/2023/07',
  'http://schemas.slic3r.org/3mf/2017/06', // PrusaSlicer / Slic3r PE
  'http://schemas.bambulab.com/package/2021', // Bambu Studio, OrcaSlicer
  'http://software.ultimaker.com/xml/cura/3mf/2015/10', // Cura
]);
