// What files/ tells the folders above it about uploads. Quotes subscribe (their prefetch, quotes/prefetch.ts)
// instead of files/ calling up into them; the app connects the two (server/app.ts).
import type { FileRow } from './sql.ts';

/** A shopper's upload: whose it is and how long its session lasts. */
export interface ShopperUpload {
  widgetKeyId: string | null;
  /** When the upload's shopper session ends. */
  expiresAt: Date;
  /** Who uploaded (docs/limits.md). */
  caller: string;
}

export interface UploadListener {
  /** A shopper's file was stored or rescaled; called after the answer is decided, must not throw. */
  shopperUploaded(file: FileRow, upload: ShopperUpload): void;
}
