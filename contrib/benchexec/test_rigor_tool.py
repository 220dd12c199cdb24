"""Checks the tool-info module with BenchExec's own classes.

For every task under the SV-COMP folder (argument 2) and every property of
it whose file exists, builds the command line as BenchExec would
(``benchexec.model.cmdline_for_run``), runs it, and hands the output to
``determine_result`` through BenchExec's ``Run``/``RunOutput``; the result
must be the task's expected verdict. Prints one line per run; exits 1 on
any mismatch.

    python3 test_rigor_tool.py TOOL_DIRECTORY SVCOMP_FOLDER
"""

import os
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import benchexec.model as model  # noqa: E402
import benchexec.result as result  # noqa: E402
import benchexec.tools.template as template  # noqa: E402
import benchexec.util as util  # noqa: E402
from rigor_tools.rigor import Tool  # noqa: E402


def main(tool_directory, folder):
    tool = Tool()
    executable = tool.executable(template.BaseTool2.ToolLocator(tool_directory=tool_directory))
    version = tool.version(executable)
    assert version and version[0].isdigit(), f"version {version!r}"
    print(f"rigor {version} at {executable}")
    failures, runs = 0, 0
    for root, _, files in sorted(os.walk(os.path.abspath(folder))):
        for name in sorted(f for f in files if f.endswith(".yml")):
            task_file = os.path.join(root, name)
            with open(task_file) as f:
                task = yaml.safe_load(f)
            inputs = model.handle_files_from_task_definition(task["input_files"], task_file)
            for prop in task.get("properties", []):
                prp = os.path.normpath(os.path.join(root, prop["property_file"]))
                expected = prop.get("expected_verdict")
                if not os.path.isfile(prp) or "unreach-call" not in prp or expected is None:
                    continue
                limits = template.BaseTool2.ResourceLimits(cputime=60)
                cmdline = model.cmdline_for_run(
                    tool, executable, [], inputs, task_file, prp,
                    dict(task.get("options", {})), limits,
                )
                with tempfile.TemporaryDirectory() as cwd:
                    done = subprocess.run(
                        cmdline, cwd=cwd, stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, universal_newlines=True,
                    )
                    witness = os.path.isfile(os.path.join(cwd, "witness.graphml"))
                run = template.BaseTool2.Run(
                    cmdline,
                    util.ProcessExitCode.create(value=done.returncode),
                    template.BaseTool2.RunOutput(done.stdout.splitlines(keepends=True)),
                    None,
                )
                got = tool.determine_result(run)
                want = result.RESULT_TRUE_PROP if expected else result.RESULT_FALSE_REACH
                ok = got == want and witness
                runs += 1
                failures += not ok
                print(f"{'ok ' if ok else 'BAD'} {task_file} {os.path.basename(prp)}: {got} (expected {want}, witness {'written' if witness else 'missing'})")
    print(f"{runs} runs, {failures} wrong")
    return 1 if failures or runs == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
