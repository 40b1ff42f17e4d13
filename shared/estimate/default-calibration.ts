// Placeholder until scripts/fit-estimate-calibration.ts writes the fitted calibration.
import { UNCALIBRATED, type Calibration } from './calibration.ts';

export const DEFAULT_CALIBRATION: Calibration = UNCALIBRATED;
