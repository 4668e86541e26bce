// The settings dialog.
#include "SettingsDialog.h"

#include "Tone.h"
#include "WindowModal.h"
#include "media/DeviceNames.h"
#include "tor/BundledTor.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QVBoxLayout>

namespace onionvoice::ui {
namespace {

QString presetName(tor::SecurityPreset preset) {
    switch (preset) {
    case tor::SecurityPreset::Standard:
        return SettingsDialog::tr("Standard");
    case tor::SecurityPreset::MoreGuards:
        return SettingsDialog::tr("More guards");
    case tor::SecurityPreset::OneWayHotline:
        return SettingsDialog::tr("One-way hotline");
    }
    return {};
}

QComboBox* deviceCombo(const QStringList& devices, const QString& current, QWidget* parent) {
    auto* combo = new QComboBox(parent);
    combo->addItem(SettingsDialog::tr("System default"), QString());
    for (const QString& d : devices)
        combo->addItem(d, d);
    if (current.isEmpty()) {
        combo->setCurrentIndex(0);
        return combo;
    }
    // The saved device plugged into another port has another name: it is the one chosen.
    if (const auto found = media::findSavedDevice(devices, current)) {
        combo->setCurrentIndex(int(*found) + 1);
        return combo;
    }
    // A saved device that is not there now (a headset unplugged) stays the choice, marked: shown
    // as "System default", it was replaced by it at the next OK, whatever the user changed.
    combo->addItem(SettingsDialog::tr("%1 (not connected)").arg(current), current);
    combo->setCurrentIndex(combo->count() - 1);
    return combo;
}

} // namespace

SettingsDialog::SettingsDialog(const AppSettings& current, SettingsEnvironment environment,
                               QWidget* parent)
    : QDialog(parent)
    , initial_(current)
    , environment_(std::move(environment)) {
    setObjectName(QStringLiteral("settingsDialog"));
    setWindowTitle(tr("Settings — OnionVoice"));

    preset_ = new QComboBox(this);
    preset_->setObjectName(QStringLiteral("presetCombo"));
    for (auto p : {tor::SecurityPreset::Standard, tor::SecurityPreset::MoreGuards,
                   tor::SecurityPreset::OneWayHotline})
        preset_->addItem(presetName(p), tor::presetKey(p));
    preset_->setCurrentIndex(preset_->findData(tor::presetKey(current.preset)));
    tradeoff_ = new QLabel(this);
    tradeoff_->setWordWrap(true);
    tradeoff_->setTextFormat(Qt::PlainText);
    connect(preset_, &QComboBox::currentIndexChanged, this, &SettingsDialog::showPresetTradeoff);
    contactsOnly_ = new QCheckBox(tr("Only contacts holding an access key can reach me"), this);
    contactsOnly_->setObjectName(QStringLiteral("contactsOnlyCheck"));
    contactsOnly_->setChecked(current.access == call::ServiceAccess::ContactsOnly);
    contactsOnly_->setToolTip(tr("Tor itself refuses everyone else: your ID alone is not enough "
                                 "to reach you"));
    refuseUnknown_ = new QCheckBox(tr("Refuse calls from people not in my contacts"), this);
    refuseUnknown_->setObjectName(QStringLiteral("refuseUnknownCheck"));
    refuseUnknown_->setChecked(current.unknownCallers == call::UnknownCallers::Refuse);

    input_ = deviceCombo(environment_.inputDevices, current.inputDevice, this);
    input_->setObjectName(QStringLiteral("inputDeviceCombo"));
    output_ = deviceCombo(environment_.outputDevices, current.outputDevice, this);
    output_->setObjectName(QStringLiteral("outputDeviceCombo"));
    auto* soundTest = new QPushButton(tr("Sound &test…"), this);
    soundTest->setObjectName(QStringLiteral("soundTestButton"));
    connect(soundTest, &QPushButton::clicked, this, [this] {
        emit soundTestRequested(input_->currentData().toString(),
                                output_->currentData().toString());
    });

    bitrate_ = new QSpinBox(this);
    bitrate_->setObjectName(QStringLiteral("bitrateSpin"));
    // Only what the engine starts with: a refused bitrate, once saved, stopped every start.
    const auto [lowestBitrate, highestBitrate] = current.acceptedBitrates();
    bitrate_->setRange(lowestBitrate, highestBitrate);
    bitrate_->setSingleStep(4000);
    bitrate_->setSuffix(tr(" bit/s"));
    bitrate_->setValue(current.bitrate);
    policy_ = new QComboBox(this);
    policy_->setObjectName(QStringLiteral("policyCombo"));
    policy_->addItems(environment_.policies);
    policy_->setCurrentText(current.policy);
    policy_->setToolTip(tr("How audio is spread over the call's Tor links"));
    links_ = new QSpinBox(this);
    links_->setObjectName(QStringLiteral("linksSpin"));
    links_->setRange(1, 12);
    links_->setValue(current.links);
    links_->setToolTip(tr("Tor circuits each call opens"));

    useBridges_ = new QCheckBox(tr("Connect to Tor through bridges"), this);
    useBridges_->setObjectName(QStringLiteral("useBridgesCheck"));
    useBridges_->setChecked(current.useBridges);
    bridges_ = new QPlainTextEdit(this);
    bridges_->setObjectName(QStringLiteral("bridgeLines"));
    bridges_->setPlaceholderText(tr("One bridge per line, e.g.\nobfs4 192.0.2.1:443 "
                                    "FINGERPRINT cert=… iat-mode=0"));
    bridges_->setPlainText(current.bridgeLines.join('\n'));
    bridges_->setMaximumHeight(70);
    // For screen readers, which otherwise name it after its group box ("Tor").
    bridges_->setAccessibleName(tr("Bridge lines"));
    // Tab moves on: a bridge line never holds a tab, and the box swallowed the keyboard's way out.
    bridges_->setTabChangesFocus(true);
    bridgeError_ = new QLabel(this);
    bridgeError_->setObjectName(QStringLiteral("bridgeError"));
    bridgeError_->setWordWrap(true);
    // Plain text: the error quotes the bridge line as it was pasted.
    bridgeError_->setTextFormat(Qt::PlainText);
    setTone(bridgeError_, Tone::Error);
    bridgeError_->setVisible(false);
    const QStringList byObfs4 = tor::pluginTransports(environment_.obfs4Executable);
    auto* transports = new QLabel(
        tr("%1: %2. snowflake: %3.")
            .arg(byObfs4.isEmpty() ? QStringLiteral("obfs4, meek_lite") : byObfs4.join(u", "),
                 environment_.obfs4Executable.isEmpty() ? tr("not installed")
                                                        : environment_.obfs4Executable,
                 environment_.snowflakeExecutable.isEmpty() ? tr("not installed")
                                                            : environment_.snowflakeExecutable),
        this);
    transports->setObjectName(QStringLiteral("bridgeTransports"));
    transports->setWordWrap(true);
    torPath_ = new QLineEdit(current.torPath, this);
    torPath_->setObjectName(QStringLiteral("torPathField"));
    torPath_->setPlaceholderText(tr("Automatic (bundled tor, then the system's)"));
    auto* browse = new QPushButton(tr("Bro&wse…"), this);
    browse->setObjectName(QStringLiteral("browseTorButton"));
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString file = getOpenFileNameWindowModal(this, tr("tor executable"));
        if (!file.isEmpty())
            torPath_->setText(file);
    });

    auto* security = new QGroupBox(tr("Security"), this);
    auto* securityForm = new QFormLayout(security);
    securityForm->addRow(tr("&Preset:"), preset_);
    securityForm->addRow(tradeoff_);
    securityForm->addRow(contactsOnly_);
    securityForm->addRow(refuseUnknown_);
    auto* audio = new QGroupBox(tr("Audio"), this);
    auto* audioForm = new QFormLayout(audio);
    audioForm->addRow(tr("&Microphone:"), input_);
    audioForm->addRow(tr("&Speaker:"), output_);
    audioForm->addRow(soundTest);
    auto* advanced = new QGroupBox(tr("Advanced"), this);
    auto* advancedForm = new QFormLayout(advanced);
    advancedForm->addRow(tr("&Bitrate:"), bitrate_);
    advancedForm->addRow(tr("Scheduling p&olicy:"), policy_);
    advancedForm->addRow(tr("&Links per call:"), links_);
    auto* torBox = new QGroupBox(tr("Tor"), this);
    auto* torForm = new QFormLayout(torBox);
    torForm->addRow(useBridges_);
    torForm->addRow(bridges_);
    torForm->addRow(transports);
    torForm->addRow(bridgeError_);
    auto* pathRow = new QHBoxLayout;
    pathRow->addWidget(torPath_, 1);
    pathRow->addWidget(browse);
    auto* torPathLabel = new QLabel(tr("tor &executable:"), this);
    torPathLabel->setBuddy(torPath_);
    torForm->addRow(torPathLabel, pathRow);

    problem_ = new QLabel(this);
    problem_->setObjectName(QStringLiteral("settingsProblem"));
    problem_->setWordWrap(true);
    problem_->setTextFormat(Qt::PlainText);
    setTone(problem_, Tone::Error);
    problem_->setVisible(false);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setObjectName(QStringLiteral("settingsOkButton"));
    buttons->button(QDialogButtonBox::Cancel)
        ->setObjectName(QStringLiteral("settingsCancelButton"));
    connect(buttons, &QDialogButtonBox::accepted, this, &SettingsDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &SettingsDialog::reject);
    auto* content = new QWidget;
    auto* contentLayout = new QVBoxLayout(content);
    for (QWidget* w : std::initializer_list<QWidget*>{security, audio, advanced, torBox})
        contentLayout->addWidget(w);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(content);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    // Not a tab stop: the fields in it are scrolled into view as the focus reaches them.
    scroll->setFocusPolicy(Qt::NoFocus);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(scroll, 1);
    layout->addWidget(problem_);
    layout->addWidget(buttons);
    resize(560, 680);
    // The focus starts at the top, not on OK, and Tab goes down the fields as they are shown:
    // the order they were made in is not the order they are laid out in.
    const QList<QWidget*> order{preset_,
                                contactsOnly_,
                                refuseUnknown_,
                                input_,
                                output_,
                                soundTest,
                                bitrate_,
                                policy_,
                                links_,
                                useBridges_,
                                bridges_,
                                torPath_,
                                browse,
                                buttons->button(QDialogButtonBox::Ok),
                                buttons->button(QDialogButtonBox::Cancel)};
    for (qsizetype i = 1; i < order.size(); ++i)
        setTabOrder(order.at(i - 1), order.at(i));
    preset_->setFocus();
    showPresetTradeoff();
}

void SettingsDialog::setFocusToBridges() {
    useBridges_->setChecked(true);
    bridges_->setFocus();
}

void SettingsDialog::showPresetTradeoff() {
    const auto preset = tor::presetFromKey(preset_->currentData().toString());
    tradeoff_->setText(preset ? tor::describePreset(*preset).tradeoff : QString());
}

AppSettings SettingsDialog::settings() const {
    AppSettings s = initial_;
    s.preset = tor::presetFromKey(preset_->currentData().toString()).value_or(s.preset);
    s.access =
        contactsOnly_->isChecked() ? call::ServiceAccess::ContactsOnly : call::ServiceAccess::Open;
    s.unknownCallers =
        refuseUnknown_->isChecked() ? call::UnknownCallers::Refuse : call::UnknownCallers::Ring;
    s.inputDevice = input_->currentData().toString();
    s.outputDevice = output_->currentData().toString();
    s.bitrate = bitrate_->value();
    s.policy = policy_->currentText();
    s.links = links_->value();
    s.useBridges = useBridges_->isChecked();
    s.bridgeLines.clear();
    for (const QString& line : bridges_->toPlainText().split('\n'))
        if (!line.trimmed().isEmpty())
            s.bridgeLines.append(line.trimmed());
    s.torPath = torPath_->text().trimmed();
    return s;
}

QString SettingsDialog::checkBridges(const QStringList& lines,
                                     const SettingsEnvironment& environment) {
    if (lines.isEmpty())
        return tr("Add at least one bridge line, or turn bridges off.");
    const QStringList byObfs4 = tor::pluginTransports(environment.obfs4Executable);
    for (const QString& line : lines) {
        const QString transport = line.section(' ', 0, 0).toLower();
        if (transport == QLatin1String("webtunnel") && !byObfs4.contains(transport))
            return tr("webtunnel bridges need lyrebird, which is not installed (obfs4proxy cannot "
                      "run them). Install lyrebird, or use another bridge.");
        if ((transport == QLatin1String("obfs4") || transport == QLatin1String("meek_lite")) &&
            !byObfs4.contains(transport))
            return tr("%1 bridges need obfs4proxy (or lyrebird), which is not installed. "
                      "Install the obfs4proxy package, or use another bridge.")
                .arg(transport);
        if (transport == QLatin1String("snowflake") && environment.snowflakeExecutable.isEmpty())
            return tr("snowflake bridges need snowflake-client, which is not installed. "
                      "Install the snowflake-client package, or use another bridge.");
        const bool plainBridge = transport.contains(':');
        if (!plainBridge && !byObfs4.contains(transport) && transport != QLatin1String("snowflake"))
            return tr("\"%1\" is not a bridge line OnionVoice can use (obfs4, meek_lite, "
                      "webtunnel, snowflake, or address:port fingerprint).")
                .arg(line.left(40));
        if (line.contains('\n') || line.contains('\r'))
            return tr("A bridge line cannot contain line breaks.");
    }
    return {};
}

void SettingsDialog::accept() {
    const AppSettings s = settings();
    const QString bridgeError =
        s.useBridges ? checkBridges(s.bridgeLines, environment_) : QString();
    bridgeError_->setText(bridgeError);
    bridgeError_->setVisible(!bridgeError.isEmpty());
    // The hotline's service lives in its own tor's files, where client keys are not offered.
    const QString problem =
        s.preset == tor::SecurityPreset::OneWayHotline &&
                s.access == call::ServiceAccess::ContactsOnly
            ? tr("The one-way hotline cannot be limited to contacts: choose one of the two.")
            : bridgeError;
    problem_->setText(problem);
    problem_->setVisible(!problem.isEmpty());
    if (!problem.isEmpty())
        return;
    QDialog::accept();
}

} // namespace onionvoice::ui
