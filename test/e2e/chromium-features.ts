// Chromium features the browser tests turn off, kept apart from widget-env.ts so that the unit test comparing them
// with Playwright's own list loads neither Playwright nor a server.

/**
 * Features no browser test uses, turned off. Each browser window (each context) otherwise preloads the address bar's
 * suggestion popup, a page in a renderer of its own: about 1.5 CPU s per context, two thirds of what a context with a
 * small page costs (CONTRIBUTING.md).
 */
export const FEATURES_NOT_USED = ['WebUIOmniboxPopup', 'WebUIOmniboxFullPopup', 'WebUIOmniboxAimPopup'];

/**
 * The features playwright-core 1.65 turns off with its own --disable-features. Chromium keeps only the last
 * --disable-features it is given, and Playwright, unlike the component tests' launcher, does not merge a second one
 * into its own: ours must name its list too (test/chromium-features.test.ts checks it against the installed one).
 */
export const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];
