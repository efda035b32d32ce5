#include "etkit/session/host_verification.h"

#include <memory>
#include <utility>

namespace etkit::session {

Result<bundled::VerifyReport> verify_on_host(const std::string& bundle, const VerifyRequest& request,
                                             std::vector<std::string>& warnings) {
  ETKIT_ASSIGN_OR_RETURN(std::unique_ptr<LoadedProgram> loaded, load_bundle(bundle, request.data));
  MethodOptions method_options = method_options_for(*loaded, request.threads);
  size_t cases = 0;
  for (const auto& suite : loaded->bundle->suites()) cases += suite.cases.size();
  // Room for every case's events and a few load-time ones.
  Tracing tracing;
  ETKIT_TRY(setup_tracing(request.tracing, (cases + 4) * 4096, cases + 16, tracing));
  method_options.tracer = tracing.gen.get();
  bundled::VerifyOptions verify_options;
  verify_options.rtol = request.rtol;
  verify_options.atol = request.atol;
  verify_options.method = request.method;
  verify_options.case_index = request.case_index;
  verify_options.progress = request.progress;
  ETKIT_ASSIGN_OR_RETURN(bundled::VerifyReport report,
                         bundled::verify(*loaded->bundle, *loaded->program, method_options, verify_options));
  ETKIT_TRY(tracing.finish(request.tracing.etdump));
  if (tracing.gen) {
    for (std::string& warning : trace_warnings(request.tracing, tracing.gen->stats())) {
      warnings.push_back(std::move(warning));
    }
  }
  return report;
}

}  // namespace etkit::session
