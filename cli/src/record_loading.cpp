#include "record_loading.h"

namespace etkit::cli {

Result<etrecord::Etrecord> load_etrecord(const std::string& path, const std::string& method,
                                         Diagnostics& diagnostics) {
  ETKIT_ASSIGN_OR_RETURN(etrecord::Etrecord record, etrecord::Etrecord::load_file(path));
  for (const std::string& warning : record.warnings()) diagnostics.warning(warning);
  if (record.method(method) == nullptr) {
    diagnostics.warning(path + ": no method '" + method + "'; events are not linked to graph nodes");
  }
  return record;
}

}  // namespace etkit::cli
