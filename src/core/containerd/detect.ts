/** Whether a file is containerd's config.toml, by name and content: cheap, without the TOML parser (../lint/kinds.ts). */

export function isContainerdConfig(path: string, text: string): boolean {
  if (/(^|[\\/])containerd[\\/][^\\/]*config[^\\/]*\.toml$/i.test(path) || /(^|[\\/])containerd[^\\/]*\.toml$/i.test(path)) return true;
  return /\.toml$/i.test(path) && /io\.containerd\./.test(text.slice(0, 65536));
}
