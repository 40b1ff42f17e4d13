// The OpenAPI 3.1 document served at /v2/openapi.json: the contract, validated against responses in tests.
// Each feature folder holds its part (server/<feature>/openapi.ts); this file puts them together.

import { accountPaths } from './accounts/index.ts';
import { filePaths, fileResponses, fileSchemas } from './files/index.ts';
import { keptQuotePaths, keptQuoteSchemas } from './kept-quotes/index.ts';
import {
  limitsPaths,
  limitsSchemas,
  rateLimitHeaders,
  withRateLimitResponses,
  withRateLimits,
} from './limits/index.ts';
import { offerPaths, offerSchemas, offerTag } from './offer/index.ts';
import { coreSchemas, errorResponses, useContract } from './openapi/index.ts';
import { printerLibraryPaths, printerLibrarySchemas } from './printer-library/index.ts';
import { profilePaths, profileSchemas } from './profiles/index.ts';
import { quoteRequestPaths, quoteRequestSchemas } from './quote-requests/index.ts';
import { quotePaths, quoteSchemas } from './quotes/index.ts';
import { retentionPaths, retentionSchemas } from './retention/index.ts';
import { setupPaths, setupSchemas } from './setup/index.ts';
import { metricsTokenScheme, operationsPaths, operationsSchemas, systemPaths } from './system/index.ts';
import { usagePaths, usageSchemas, usageTags } from './usage/index.ts';
import { webhookEvents, webhookPaths, webhookSchemas } from './webhooks/index.ts';
import { estimatePaths, estimateSchemas, widgetPaths, widgetSchemas } from './widget/index.ts';

let cached: Record<string, any> | null = null;

/** Any bearer-authenticated operation answers 403 to a widget key outside the widget routes. */
function withWidgetRefusal<T extends Record<string, any>>(paths: T): T {
  for (const item of Object.values(paths)) {
    for (const op of Object.values<any>(item)) {
      const bearer = op.security?.some((s: Record<string, unknown>) => 'bearerAuth' in s);
      if (bearer && !op.responses['403']) op.responses['403'] = { $ref: '#/components/responses/Forbidden' };
    }
  }
  return paths;
}

/** Any operation taking a JSON body answers 413 json_too_large past the JSON limit (json-body.ts). */
function withJsonLimit<T extends Record<string, any>>(paths: T): T {
  for (const item of Object.values(paths)) {
    for (const op of Object.values<any>(item)) {
      const json = op.requestBody?.content?.['application/json'];
      if (json && op.responses && !op.responses['413'])
        op.responses['413'] = { $ref: '#/components/responses/PayloadTooLarge' };
    }
  }
  return paths;
}

export function openApiDocument(serverUrl = '/'): Record<string, any> {
  cached ??= {
    openapi: '3.1.0',
    info: {
      title: 'slicequote API',
      version: '2.0.0',
      summary: '3D-print quotes from real PrusaSlicer slices',
      description:
        'Upload STL, OBJ or 3MF models, check printability, and get prices computed from real slices. Errors share one shape: `{"error": {"code", "message", "details"}}`. Lists take `page` (from 1) and `limit` (default 20, max 100) and answer `{data, page, limit, total, has_more}`. Every DELETE of a resource answers `200` with `{"<resource>_id": …, "deleted": true}` (e.g. `{"profile_id": "prof_…", "deleted": true}`); DELETE of an offer resets it and answers the offer now in effect. Enumerated values (query, path and body: `format`, `group_by`, `state`, `unit`, `infill_pattern`, `currency`, webhook `events`, profile `kind`, …) are accepted in any letter case and stored and answered in the canonical spelling listed here. 429 means a rate limit only; an exhausted allowance answers 402. See docs/api-conventions.md.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/' }],
    tags: [
      { name: 'system', description: 'Health, readiness, metrics and the contract itself' },
      { name: 'account', description: 'The authenticated account' },
      { name: 'files', description: 'Model files, public uploads and printability' },
      { name: 'quotes', description: 'Quotes from real slices, jobs and history' },
      { name: 'profiles', description: 'Printer, material and global slice profiles' },
      offerTag,
      { name: 'widget', description: 'The storefront widget (publishable widget key in X-Widget-Key)' },
      { name: 'dashboard', description: 'Dashboard API (cookie session; CSRF header on state-changing calls)' },
      { name: 'webhooks', description: 'Webhook endpoints, deliveries and the events they receive' },
      ...usageTags,
    ],
    // Every operation gets the X-RateLimit-* headers, a 429 and its rate-limit class (server/limits/openapi.ts).
    paths: withRateLimits(
      withJsonLimit(
        withWidgetRefusal({
          ...systemPaths,
          ...accountPaths,
          ...filePaths,
          ...quotePaths,
          ...keptQuotePaths,
          ...quoteRequestPaths,
          ...setupPaths,
          ...printerLibraryPaths,
          ...profilePaths,
          ...widgetPaths,
          ...estimatePaths,
          ...offerPaths,
          ...webhookPaths,
          ...limitsPaths,
          ...retentionPaths,
          ...usagePaths,
          ...operationsPaths,
        }),
      ),
    ),
    // The requests slicequote sends to merchants' endpoints (OpenAPI 3.1 webhooks).
    webhooks: webhookEvents,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'An API token created in the dashboard',
        },
        sessionCookie: { type: 'apiKey', in: 'cookie', name: 'sq_session', description: 'Dashboard session' },
        widgetKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Widget-Key',
          description: 'Publishable widget key (pk_...); only from its allowed origins, only on the widget routes',
        },
        ...metricsTokenScheme,
      },
      schemas: {
        ...coreSchemas,
        ...fileSchemas,
        ...quoteSchemas,
        ...profileSchemas,
        ...keptQuoteSchemas,
        ...quoteRequestSchemas,
        ...setupSchemas,
        ...printerLibrarySchemas,
        ...widgetSchemas,
        ...estimateSchemas,
        ...offerSchemas,
        ...webhookSchemas,
        ...limitsSchemas,
        ...retentionSchemas,
        ...usageSchemas,
        ...operationsSchemas,
      },
      responses: withRateLimitResponses({ ...errorResponses(), ...fileResponses }),
      headers: rateLimitHeaders,
    },
  };
  return serverUrl === '/' ? cached : { ...cached, servers: [{ url: serverUrl }] };
}

// Request bodies are validated against this same document (openapi/validate.ts).
useContract(() => openApiDocument().components);
