// Paths of slice profiles: the account's printer, material and global profiles beside the shipped global ones
// (their schemas are with the quote's, whose settings they supply: server/quotes/openapi.ts).
import { jsonBody, ok, errors, pathParam, bearer } from '../openapi/index.ts';

const kind = {
  name: 'kind',
  in: 'path',
  required: true,
  description: 'Profile kind',
  schema: { type: 'string', enum: ['printer', 'material', 'global'] },
};
const profileId = pathParam('profile_id', 'A profile id (prof_...)');

export const profilePaths = {
  '/v2/profiles/{kind}': {
    get: {
      operationId: 'listProfiles',
      tags: ['profiles'],
      summary: "The account's profiles of a kind, then the global ones",
      security: bearer,
      parameters: [kind],
      responses: { '200': ok('ProfileList', 'Profiles'), ...errors(401, 404) },
    },
    post: {
      operationId: 'createProfile',
      tags: ['profiles'],
      summary: 'Create a profile',
      security: bearer,
      parameters: [kind],
      requestBody: jsonBody('ProfileInput'),
      responses: { '201': ok('Profile', 'Created'), ...errors(400, 401, 404, 409) },
    },
  },
  '/v2/profiles/{kind}/{profile_id}': {
    get: {
      operationId: 'getProfile',
      tags: ['profiles'],
      summary: 'One profile',
      security: bearer,
      parameters: [kind, profileId],
      responses: { '200': ok('Profile', 'The profile'), ...errors(401, 404) },
    },
    put: {
      operationId: 'replaceProfile',
      tags: ['profiles'],
      summary: 'Replace a profile',
      security: bearer,
      parameters: [kind, profileId],
      requestBody: jsonBody('ProfileInput'),
      responses: { '200': ok('Profile', 'Replaced'), ...errors(400, 401, 403, 404, 409) },
    },
    delete: {
      operationId: 'deleteProfile',
      tags: ['profiles'],
      summary: 'Delete a profile',
      security: bearer,
      parameters: [kind, profileId],
      responses: { '200': ok('ProfileDeleted', 'Deleted'), ...errors(401, 403, 404) },
    },
  },
};
