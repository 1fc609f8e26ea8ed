/**
 * The contract: every resource and request schema, the endpoint table, error codes and event
 * names. Server, SDK, CLI and OpenAPI all derive from this module; nothing else defines the
 * shape of a resource.
 */
import { apiKeyEndpoints } from './resources/apiKeys.js';
import { tokenEndpoints } from './resources/tokens.js';
import { systemEndpoints } from './resources/system.js';
import { sandboxWalletEndpoints } from './resources/sandboxWallet.js';
import type { Endpoint } from './endpoint.js';

export * from './common.js';
export * from './errors.js';
export * from './endpoint.js';
export * from './events.js';
export * from './resources/apiKeys.js';
export * from './resources/tokens.js';
export * from './resources/system.js';
export * from './resources/sandboxWallet.js';

export const endpoints = [...systemEndpoints, ...apiKeyEndpoints, ...tokenEndpoints, ...sandboxWalletEndpoints] as const;

export type AnyEndpoint = Endpoint;
export type Endpoints = typeof endpoints;
export type EndpointKey = `${Endpoints[number]['method']} ${Endpoints[number]['path']}`;
