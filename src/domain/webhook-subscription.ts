/**
 * Whether an endpoint's stored event list (a JSON array of event types, `*` for all) takes this event
 * type; a list that cannot be read takes nothing.
 */
export function subscribes(eventsJson: string, type: string): boolean {
  try {
    const list = JSON.parse(eventsJson) as unknown;
    return Array.isArray(list) && (list.includes('*') || list.includes(type));
  } catch {
    return false;
  }
}
