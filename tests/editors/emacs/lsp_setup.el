;;; lsp_setup.el --- lsp-mode as lsp_check.el and lsp_tune.el run it  -*- lexical-binding: t; -*-
;; Only what the tests look at is on; state stays under the test's HOME.

(setq lsp-session-file (locate-user-emacs-file "lsp-session")  ; under the test's HOME
      lsp-auto-guess-root t
      lsp-restart 'ignore
      lsp-keep-workspace-alive nil
      lsp-diagnostics-provider :flymake
      lsp-enable-file-watchers nil
      lsp-headerline-breadcrumb-enable nil
      lsp-modeline-code-actions-enable nil
      lsp-modeline-diagnostics-enable nil
      lsp-lens-enable nil
      lsp-enable-symbol-highlighting nil
      lsp-signature-auto-activate nil
      lsp-enable-on-type-formatting nil
      lsp-semantic-tokens-enable nil
      lsp-log-io nil)
(require 'lsp-mode)
;;; lsp_setup.el ends here
