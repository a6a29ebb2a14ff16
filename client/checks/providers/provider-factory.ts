import type { ProviderSettings } from "../config/run-settings.js";
import { AnthropicProvider } from "./anthropic-provider.js";
import { MockProvider, readTranscript } from "./mock-provider.js";
import type { ModelProvider } from "./model-provider.js";
import { OpenAiProvider } from "./openai-provider.js";

/** The provider the settings name. Reads the mock transcript now, so a bad one fails before any browser starts. */
export function createProvider(settings: ProviderSettings): ModelProvider {
  switch (settings.name) {
    case "mock":
      return new MockProvider(settings.model, readTranscript(settings.transcriptPath as string));
    case "openai":
      return new OpenAiProvider(settings.model, settings.apiKey, settings.baseUrl ?? undefined);
    case "anthropic":
      return new AnthropicProvider(settings.model, settings.apiKey as string, settings.baseUrl ?? undefined);
  }
}
