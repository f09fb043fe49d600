; Inno Setup 6 script: a per-user installer for the one-folder bundle in dist\decision-journal.
;
; Build on Windows from the repository root, after PyInstaller (see packaging\README.md):
;   iscc /DAppVersion=0.1.0 packaging\windows\decision-journal.iss
; Signed build (signtool from the Windows SDK; the certificate in the user's store):
;   iscc /DAppVersion=0.1.0 "/Ssigntool=signtool.exe sign /fd SHA256 /tr http://timestamp.digicert.com /td SHA256 /a $f" /DSign packaging\windows\decision-journal.iss
;
; No administrator rights: installs into %LOCALAPPDATA%\Programs\Decision Journal, adds a
; Start-menu shortcut, and optionally starts the tray app at sign-in through the same HKCU Run
; value the app's own "Start at login" menu item writes (app/autostart.py), so the two agree.
; Uninstalling removes that value whoever set it. The journal (%LOCALAPPDATA%\decision-journal)
; is the user's data and is never touched.

#ifndef AppVersion
  #error Pass the version from pyproject.toml: iscc /DAppVersion=X.Y.Z ...
#endif

#define AppName "Decision Journal"
#define AppExe "decision-journal.exe"
#define RunKey "Software\Microsoft\Windows\CurrentVersion\Run"
#define RunValue "DecisionJournal"

[Setup]
; Never change AppId: upgrades and the uninstaller find the installation by it.
AppId={{DF1F9B6D-ADC7-4FC5-9E71-0F121263ED55}
AppName={#AppName}
AppVersion={#AppVersion}
AppVerName={#AppName} {#AppVersion}
AppPublisher=Decision Journal
VersionInfoVersion={#AppVersion}
PrivilegesRequired=lowest
DefaultDirName={localappdata}\Programs\{#AppName}
DisableDirPage=auto
DisableProgramGroupPage=yes
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
MinVersion=10.0
SourceDir=..\..
OutputDir=dist
OutputBaseFilename=decision-journal-{#AppVersion}-windows-x64-setup
SetupIconFile=build\decision-journal\decision-journal.ico
UninstallDisplayIcon={app}\{#AppExe}
UninstallDisplayName={#AppName}
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
; The tray app (and agents' MCP servers) run from {app}: close them before replacing files.
CloseApplications=force
RestartApplications=no
#ifdef Sign
SignTool=signtool
SignedUninstaller=yes
#endif

[Languages]
Name: "english"; MessagesFile: "compiler:Default.isl"

[Tasks]
Name: "startatlogin"; Description: "Start {#AppName} when I sign in"; Flags: unchecked

[Files]
Source: "dist\decision-journal\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\{#AppName}"; Filename: "{app}\{#AppExe}"; Parameters: "app"; WorkingDir: "{app}"; Comment: "Ask at implementation forks and keep a journal of decisions"

[Registry]
; Same value name and command line as app/autostart.py writes (subprocess.list2cmdline).
Root: HKCU; Subkey: "{#RunKey}"; ValueType: string; ValueName: "{#RunValue}"; ValueData: """{app}\{#AppExe}"" app"; Flags: uninsdeletevalue; Tasks: startatlogin

[Run]
Filename: "{app}\{#AppExe}"; Parameters: "app"; Description: "Start {#AppName} now"; Flags: nowait postinstall skipifsilent

[UninstallRun]
; Stop this user's tray app so its files can be removed; agents start a new one on demand.
Filename: "{sys}\taskkill.exe"; Parameters: "/F /T /IM {#AppExe} /FI ""USERNAME eq {username}"""; Flags: runhidden; RunOnceId: "StopDecisionJournal"

[Code]
{ The tray menu's "Start at login" may have written the Run value after installation without
  the task; uninstalling removes it all the same, but only when it points into this install. }
procedure CurUninstallStepChanged(CurUninstallStep: TUninstallStep);
var
  Command: String;
begin
  if CurUninstallStep = usUninstall then
    if RegQueryStringValue(HKCU, '{#RunKey}', '{#RunValue}', Command) then
      if Pos(Lowercase(ExpandConstant('{app}')), Lowercase(Command)) > 0 then
        RegDeleteValue(HKCU, '{#RunKey}', '{#RunValue}');
end;
