/**
 * `kubeadm-workbench import-ansible FILE [--out inventory.yaml] [--force]`: converts an Ansible/Kubespray
 * inventory (INI or YAML) into inventory.yaml. Without --out the result goes to stdout; findings go to stderr
 * as `file:line:col: severity: message [rule]`. Kubespray's group_vars next to FILE are read when present.
 */
import { t } from '../core/l10n';
import * as path from 'node:path';
import { importAnsibleInventory, KUBESPRAY_GROUP_VARS, type AnsibleGroupVarsFile, type AnsibleImportOptions } from '../core/inventory/ansible';
import { serializeInventory } from '../core/inventory/serialize';
import { CNIS, type Cni } from '../core/inventory/types';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, formatFinding, type CliIo } from './io';
import { errorMessage } from '../core/errors';
import { UsageError } from './args';
import { defineVerb, usageText, type ListedVerbs } from './verb';

const usage = (): string =>
  usageText([
    'kubeadm-workbench import-ansible FILE [--out inventory.yaml] [--force]',
    '                 [--name NAME] [--kubernetes-version V] [--endpoint HOST:PORT] [--cni flannel|calico]',
    '                 [--vrrp-interface IFACE] [--no-group-vars]',
  ]);

interface ImportArgs {
  file: string;
  out?: string;
  force: boolean;
  groupVars: boolean;
  options: AnsibleImportOptions;
}

/** The verb's grammar (short flags -o -f -h, `--out=F`): a mistake is a UsageError "import-ansible: …"; -h answers 'help'. */
function parseImportArgs(argv: string[]): ImportArgs | 'help' {
  const rest = argv[0] === 'import-ansible' ? argv.slice(1) : argv;
  let file: string | undefined;
  const args: Omit<ImportArgs, 'file'> = { force: false, groupVars: true, options: {} };
  const options = args.options;
  const mistake = (message: string): never => {
    throw new UsageError(`import-ansible: ${message}`);
  };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const value = (): string | undefined => (eq > 0 ? arg.slice(eq + 1) : rest[++i]);
    const needValue = (set: (v: string) => void): boolean => {
      const v = value();
      if (v === undefined || v === '') return false;
      set(v);
      return true;
    };
    switch (flag) {
      case '-h':
      case '--help':
        return 'help';
      case '-o':
      case '--out':
        if (!needValue((v) => (args.out = v))) mistake(t('{0} needs a file name', flag));
        break;
      case '-f':
      case '--force':
        args.force = true;
        break;
      case '--no-group-vars':
        args.groupVars = false;
        break;
      case '--name':
        if (!needValue((v) => (options.clusterName = v))) mistake(t('{0} needs a value', '--name'));
        break;
      case '--kubernetes-version':
        if (!needValue((v) => (options.kubernetesVersion = v))) mistake(t('{0} needs a value', '--kubernetes-version'));
        break;
      case '--endpoint':
        if (!needValue((v) => (options.controlPlaneEndpoint = v))) mistake(t('--endpoint needs HOST:PORT'));
        break;
      case '--vrrp-interface':
        if (!needValue((v) => (options.vrrpInterface = v))) mistake(t('{0} needs a value', '--vrrp-interface'));
        break;
      case '--cni': {
        let cni = '';
        if (!needValue((v) => (cni = v)) || !(CNIS as readonly string[]).includes(cni)) mistake(t('--cni must be one of {0}', CNIS.join(', ')));
        options.cni = cni as Cni;
        break;
      }
      default:
        if (arg.startsWith('-') && arg !== '-') mistake(t('unknown option {0}', arg));
        if (file !== undefined) mistake(t('one inventory at a time (got {0} and {1})', file, arg));
        file = arg;
    }
  }
  return { ...args, file: file ?? mistake(t('FILE is required')) };
}

/** --help (and -h anywhere) prints the usage on stdout, as this verb always has. */
export const runImport = defineVerb({
  words: 'import-ansible', flags: {}, positionals: true, needs: {}, usage, helpOn: 'stdout',
  parse: (argv) => ({ flags: {}, positionals: argv }),
  validate: (_flags, argv) => parseImportArgs(argv),
  run: async ({ options: args, io }) => {
    if (args === 'help') {
      io.stdout(usage());
      return EXIT_OK;
    }
    const { file, out, force, groupVars, options } = args;
    let text: string;
    try {
      text = await io.readFile(file);
    } catch (e) {
      io.stderr(`import-ansible: ${t('cannot read {0}: {1}', file, errorMessage(e))}\n`);
      return EXIT_USAGE;
    }
    if (out !== undefined && !force && (await readable(io, out))) {
      io.stderr(`import-ansible: ${t('{0} exists; use --force to replace it', out)}\n`);
      return EXIT_FAILED;
    }

    if (groupVars) {
      const found: AnsibleGroupVarsFile[] = [];
      const dir = path.dirname(file);
      for (const gv of KUBESPRAY_GROUP_VARS) {
        const fileName = path.join(dir, gv.file);
        try {
          found.push({ group: gv.group, fileName, text: await io.readFile(fileName) });
        } catch {
          // not there: Kubespray layouts vary
        }
      }
      if (found.length) options.groupVars = found;
    }

    const { inventory, findings } = importAnsibleInventory(text, file, options);
    for (const f of findings) io.stderr(formatFinding(file, f) + '\n');
    const errors = findings.filter((f) => f.severity === 'error').length;
    // The file's own comment stays English, whatever the language: the file is shared and versioned.
    const yaml = serializeInventory(inventory, `Imported from ${file} by kubeadm-workbench import-ansible.`);
    if (out === undefined) {
      io.stdout(yaml);
    } else if (errors) {
      io.stderr(`import-ansible: ${t('{0} not written: {1} error(s)', out, errors)}\n`);
    } else {
      try {
        await io.writeFile(out, yaml);
      } catch (e) {
        io.stderr(`import-ansible: ${t('cannot write {0}: {1}', out, errorMessage(e))}\n`);
        return EXIT_FAILED;
      }
      io.stderr(`${t('{0}: {1} hosts written', out, inventory.hosts.length)}\n`);
    }
    return errors ? EXIT_FAILED : EXIT_OK;
  },
});

async function readable(io: CliIo, file: string): Promise<boolean> {
  try {
    await io.readFile(file);
    return true;
  } catch {
    return false;
  }
}

/** What `kubeadm-workbench --help` lists of this file (ListedVerbs, ./verb.ts; npm run gen:tables copies it into main.ts). */
export const verbs = {
  'import-ansible': { summary: () => `import-ansible FILE [--out F]   ${t('convert an Ansible/Kubespray inventory')}`, run: runImport },
} satisfies ListedVerbs;
