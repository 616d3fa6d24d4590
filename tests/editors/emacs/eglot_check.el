;;; eglot_check.el --- drives eglot (Debian's elpa-eglot) against the real eals  -*- lexical-binding: t; -*-
;; Run: emacs --batch -l eglot_check.el (environment: see common.el).
;; In batch mode `eglot-ensure' (post-command-hook) and eglot's idle change
;; timer never fire: the server is started with `eglot' and every edit is sent
;; with `eglot--signal-textDocument/didChange' before the next request.

(load (expand-file-name "common.el" (file-name-directory load-file-name)) nil t)
(require 'eglot)
;; eglot waits 3 s for the connection by default and then goes on in the background, so a
;; server slow to answer `initialize' on a loaded machine failed the check below: wait for it.
(setq eglot-sync-connect 60)

(defvar ea-eglot-logs nil "Messages of every window/logMessage notification.")
(defvar ea-eglot-error-logs nil "Messages of Error-type window/logMessage notifications.")
(advice-add 'eglot-handle-notification :before
            (lambda (_server method &rest params)
              (when (eq method 'window/logMessage)
                (push (plist-get params :message) ea-eglot-logs)
                (when (eql (plist-get params :type) 1)
                  (push (plist-get params :message) ea-eglot-error-logs)))))

(defun ea-eglot-flush () (eglot--signal-textDocument/didChange))

(defun ea-eglot-diagnostics (pred &optional seconds)
  "Flymake's diagnostics once PRED holds for them (Flymake asks eglot's backend)."
  (ea-wait (or seconds 15) (lambda () (flymake-start) (funcall pred (ea-flymake-list))))
  (ea-flymake-list))

(defun ea-eglot-main ()
  (ea-put "eglot" (ea-package-version 'eglot))
  (find-file (expand-file-name "bad.ea" (getenv "EA_DIR")))
  (ea-put "major_mode" (symbol-name major-mode))
  (apply #'eglot (eglot--guess-contact))
  (let ((server (eglot-current-server)))
    (unless (ea-check "connected" (and server eglot--managed-mode) major-mode)
      (error "eglot did not connect"))
    (ea-put "server_name" (plist-get (eglot--server-info server) :name))
    (ea-put "snippet_support" (if (eglot--snippet-expansion-fn) t :json-false))

    ;; 1. Diagnostics: one error, at its line and columns.
    (let ((diags (ea-eglot-diagnostics (lambda (ds) ds))))
      (ea-wait 0.5 #'ignore)  ; anything more (a duplicate) would arrive now
      (ea-put "diagnostics" (vconcat (ea-eglot-diagnostics (lambda (_) t) 0)))
      (ea-check "one diagnostic" (= (length diags) 1) diags))

    ;; 2. The quick fix, asked for the whole line as eglot users do (region = line).
    (ea-goto 2 "return")
    (eglot-code-actions (line-beginning-position) (line-end-position) "quickfix" t)
    (ea-put "text_after_fix" (ea-buffer-text))
    (ea-eglot-flush)
    (ea-put "diagnostics_after_fix" (length (ea-eglot-diagnostics #'null)))

    ;; 3. Completion: `vad' completes to `vadd', inserted as plain text.
    (ea-goto 6 "vadd(a, a)")
    (delete-region (point) (line-end-position))
    (insert "vad")
    (ea-eglot-flush)
    (let* ((capf (eglot-completion-at-point))
           (start (nth 0 capf)) (end (nth 1 capf)) (table (nth 2 capf))
           (exit (plist-get (nthcdr 3 capf) :exit-function))
           (candidates (all-completions (buffer-substring-no-properties start end) table))
           (choice (car (member "vadd" candidates))))
      (ea-put "completion_candidates" (vconcat candidates))
      (when (ea-check "vadd offered" choice candidates)
        ;; What a completion UI does on accepting an item: insert it, then exit-function.
        (delete-region start end)
        (goto-char start)
        (insert choice)
        (when exit (funcall exit choice 'finished))))
    (ea-put "completed_line" (buffer-substring-no-properties (line-beginning-position) (line-end-position)))
    (delete-region (line-beginning-position) (line-end-position))
    (insert "    return vadd(a, a)")
    (ea-eglot-flush)

    ;; 4. Hover on the function name: signature and machine-code counts, as eglot renders it.
    (ea-goto 1 "vadd" 1)
    (let* ((reply (ea-wait 15 (lambda ()
                                (let ((r (jsonrpc-request server :textDocument/hover
                                                          (eglot--TextDocumentPositionParams))))
                                  (and r (string-match-p "instructions"
                                                         (format "%S" (plist-get r :contents)))
                                       r)))))
           (contents (plist-get reply :contents)))
      (ea-put "hover" (if contents (eglot--hover-info contents (plist-get reply :range)) "")))

    ;; 5. Definition: from the call in `twice' to line 1.
    (ea-goto 6 "vadd" 1)
    (call-interactively #'xref-find-definitions)
    (ea-put "definition" (vconcat (ea-position (point))))
    (ea-put "definition_buffer" (buffer-name))

    ;; 6. Rename `vadd' -> `vsum' (definition and call), then a refused rename.
    (ea-goto 1 "vadd" 1)
    (eglot-rename "vsum")
    (ea-put "text_after_rename" (ea-buffer-text))
    (ea-eglot-flush)
    (save-buffer)  ; eglot sends textDocument/didSave unasked: it must not reach stderr
    (ea-put "saved" (not (buffer-modified-p)))
    (ea-goto 10 "sqrt" 1)
    (ea-put "refused_rename"
            (condition-case e (progn (eglot-rename "root2") "no error")
              (error (error-message-string e))))
    ;; 7. A bad setting is reported in the log (a Warning, not an Error).
    (setq-default eglot-workspace-configuration '((:ea . (:opt_level 7))))
    (eglot-signal-didChangeConfiguration server)
    (ea-wait 5 (lambda () ea-eglot-logs))
    (ea-put "stderr" (ea-buffer-contents (jsonrpc-stderr-buffer server)))
    (ea-put "logs" (vconcat (reverse ea-eglot-logs)))
    (ea-put "error_logs" (vconcat (reverse ea-eglot-error-logs)))))

(ea-run #'ea-eglot-main)
;;; eglot_check.el ends here
