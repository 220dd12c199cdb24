"""BenchExec tool-info modules of rigor (``rigor_tools.rigor``)."""
