"""BenchExec tool-info module for rigor, a verifier for RERS problems.

rigor decides the SV-COMP property unreach-call (``G ! call(f())``) of the
RERS-derived tasks (eca-rers2012, eca-rers2018) and writes a GraphML witness
(``witness.graphml`` in the working directory) for every verdict.

Use it with ``PYTHONPATH=contrib/benchexec`` and
``<benchmark tool="rigor_tools.rigor">``.
"""

import benchexec.result as result
import benchexec.tools.template
from benchexec.tools.sv_benchmarks_util import ILP32, LP64, get_data_model_from_task

# The answers rigor prints, one per line: the verdict, then (for tasks with
# several properties) the property file.
ANSWERS = {
    "TRUE": result.RESULT_TRUE_PROP,
    "FALSE(unreach-call)": result.RESULT_FALSE_REACH,
    "UNKNOWN": result.RESULT_UNKNOWN,
}


class Tool(benchexec.tools.template.BaseTool2):
    """
    Tool info for rigor (SV-COMP mode: ``rigor svcomp --property P.prp PROGRAM.c``).
    """

    REQUIRED_PATHS = []

    def executable(self, tool_locator):
        return tool_locator.find_executable("rigor")

    def name(self):
        return "rigor"

    def version(self, executable):
        return self._version_from_tool(executable, line_prefix="rigor")

    def cmdline(self, executable, options, task, rlimits):
        cmd = [executable, "svcomp"] + list(options)
        if task.property_file:
            cmd += ["--property", task.property_file]
        data_model = get_data_model_from_task(task, {ILP32: "ILP32", LP64: "LP64"})
        if data_model and "--data-model" not in options:
            cmd += ["--data-model", data_model]
        if "--witness" not in options:
            cmd += ["--witness", "witness.graphml"]
        limit = rlimits.cputime or rlimits.walltime
        if limit and "--timeout" not in options:
            # rigor's limit is wall time: leave a margin to print the answer.
            cmd += ["--timeout", str(max(1, int(limit * 0.95)))]
        return cmd + [task.single_input_file]

    def determine_result(self, run):
        for line in reversed(run.output):
            words = line.strip().split()
            if words and words[0] in ANSWERS:
                return ANSWERS[words[0]]
        if run.was_timeout:
            return result.RESULT_TIMEOUT
        if run.exit_code.value not in (0, None):
            for line in reversed(run.output):
                if line.startswith("rigor: "):
                    return "ERROR (" + line[len("rigor: ") :].strip()[:60] + ")"
            return result.RESULT_ERROR
        return result.RESULT_UNKNOWN
