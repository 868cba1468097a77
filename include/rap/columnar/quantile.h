// Order statistics of measurements (scan statistics, benchmarks).
#pragma once

#include <vector>

namespace rap::columnar {

// The q-quantile (0..1, nearest rank) of `values`; 0 when empty.
double Quantile(std::vector<double> values, double q);

}  // namespace rap::columnar
