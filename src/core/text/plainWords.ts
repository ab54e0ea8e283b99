/**
 * Text for places that show it verbatim — the Problems panel, notifications, webview labels: Markdown code
 * spans (`mode tcp`) would show their backticks there, so they become plain quotes ('mode tcp'). Hovers and
 * tooltips render Markdown and keep the original.
 */
export function plainWords(text: string): string {
  return text.replace(/`{1,2}([^`\n]+?)`{1,2}/g, "'$1'");
}
