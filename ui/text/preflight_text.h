#pragma once

// "Will it hit here?" as the Import and Pull dialogs say it: the answer in
// one line, then each entry that will miss with its reasons, or why the
// machine is unknown. Rich text; everything from a cache is escaped.

#include <cachelens/core/error.h>
#include <cachelens/explain/preflight.h>

#include <QString>

namespace cachelens::ui {

QString preflightHtml(const Result<explain::TargetCheck>& check);

} // namespace cachelens::ui
