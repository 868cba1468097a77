// rap._rap: the nanobind extension behind the Python package `rap` (python/rap/__init__.py holds the
// public API and its docstrings; docs/python.md).
#include "binding.h"

NB_MODULE(_rap, m) {
  m.doc() = "rap's C++ core (use the package `rap`)";
  rap::py::BindReader(m);
  rap::py::BindScan(m);
  rap::py::BindIndex(m);
  rap::py::BindMaintenance(m);
  rap::py::BindInspect(m);
  rap::py::BindWrite(m);
}
