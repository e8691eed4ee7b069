// Every setting the gateway reads, in one registry: the process's own (core.ts) and each area's (mail,
// payment sources, checkout, console, payment links, overload, alerts). Low in the layers, beside the
// domain, so that whoever reads a setting (services through deps.config, the edges, the loader in
// src/config.ts) imports it from here and never from the area above that owns its use.
import type { Setting, SettingsOf } from './kit.js';
import { coreSettings, type CoreSettings } from './core.js';
import { mailSettings, type MailSettings } from './mail.js';
import { sourceSettings, type SourceSettings } from './sources.js';
import { checkoutSettings, type CheckoutSettings } from './checkout.js';
import { consoleSettings, type ConsoleSettings } from './console.js';
import { paymentLinkSettings, type PaymentLinkSettings } from './payment-links.js';
import { overloadSettings, type OverloadSettings } from './overload.js';
import { notifySettings, type NotifySettings } from './notify.js';

export interface Config
  extends CoreSettings,
    MailSettings,
    SourceSettings,
    CheckoutSettings,
    ConsoleSettings,
    PaymentLinkSettings,
    OverloadSettings,
    NotifySettings {}

/** Every setting, keyed by its Config field. */
export const SETTINGS: SettingsOf<Config> = {
  ...coreSettings,
  ...mailSettings,
  ...sourceSettings,
  ...checkoutSettings,
  ...consoleSettings,
  ...paymentLinkSettings,
  ...overloadSettings,
  ...notifySettings,
};

/** The environment variables the gateway reads, for tools that must clear or set them (test helpers, the bench). */
export const SETTING_NAMES: readonly string[] = Object.values<Setting<unknown, Config>>(SETTINGS).map((s) => s.name);
